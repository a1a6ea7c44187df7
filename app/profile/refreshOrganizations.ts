import { api } from "~/api";
import { useProfileStore } from "./store";
import type { Claim, Organization } from "./types";

/**
 * Re-read organizations and claims after they changed (an organization created: its admin claim
 * is new). Same calls as preflight step 2.
 */
export async function refreshOrganizations(): Promise<Organization[]> {
  const [claims, organizations] = await Promise.all([api.get<Claim[]>("/api/profile/user-claims"), api.get<Organization[]>("/api/organizations")]);
  useProfileStore.getState().setClaimsAndOrganizations(claims, organizations);
  return organizations;
}
