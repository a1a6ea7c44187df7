import { api } from "~/api";
import { refreshOrganizations, useProfileStore, type Organization } from "~/profile";

/**
 * POST /api/organizations, then re-read claims and organizations: the creator's new admin claim
 * must be known before they switch to it. Silent: the form shows the API's message inline.
 */
export async function createOrganization(name: string): Promise<Organization> {
  const created = await api.post<Organization>("/api/organizations", { name: name.trim() }, { silent: true });
  useProfileStore.getState().addOrganization(created);
  await refreshOrganizations().catch(() => undefined);
  return created;
}
