import { getFreshUser } from "~/auth";
import { currentOrganizationId } from "~/profile/selectors";

/**
 * docs/requirements.md#r-calls: every API call carries the current organization, the XHR marker and the bearer token.
 * The user is refreshed first, so a token about to expire is renewed before it is sent.
 */
export async function apiHeaders(extra?: HeadersInit): Promise<Headers> {
  const user = await getFreshUser();
  const headers = new Headers(extra);
  const organizationId = currentOrganizationId();
  if (organizationId) headers.set("OrganizationId", organizationId);
  headers.set("X-Requested-With", "XMLHttpRequest");
  if (user?.access_token) headers.set("Authorization", `Bearer ${user.access_token}`);
  return headers;
}
