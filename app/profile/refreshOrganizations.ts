import { api } from "~/api";
import { useProfileStore } from "./store";
import type { Claim, Organization, TradePlatform } from "./types";

/**
 * Re-read organizations, claims and trade platforms after they changed (an organization created:
 * its admin claim is new; an invitation accepted: the joined organization's platforms are new, or
 * its first screen would say it has none). Same calls as preflight steps 2 and 3.
 */
export async function refreshOrganizations(): Promise<Organization[]> {
  const [claims, organizations, tradePlatforms] = await Promise.all([
    api.get<Claim[]>("/api/profile/user-claims"),
    api.get<Organization[]>("/api/organizations"),
    api.get<TradePlatform[]>("/api/tradePlatforms"),
  ]);
  const store = useProfileStore.getState();
  store.setClaimsAndOrganizations(claims, organizations);
  store.setTradePlatforms(tradePlatforms);
  return organizations;
}
