/** Profile state (docs/requirements.md#r-entities, docs/requirements.md#r-states): who is signed in, where they work, what they may do. */
export { useProfileStore, resetProfile, chooseOrganization, PROFILE_STORAGE_KEY, type ProfileState } from "./store";
export {
  currentOrganizationId,
  onOrganizationChange,
  selectCurrentOrganization,
  selectCurrentOrganizationId,
  selectTradePlatforms,
  useCurrentOrganization,
  useCurrentOrganizationId,
  useTradePlatforms,
  useTradePlatform,
} from "./selectors";
export { useAccess, type Access } from "./useAccess";
export { useSwitchOrganization } from "./useSwitchOrganization";
export { usePreflight } from "./usePreflight";
export { refreshOrganizations } from "./refreshOrganizations";
export { useMemberPreferences, type MemberPreferences } from "./memberPreferences";
export type { Organization, TradePlatform, TradePlatformType, PreflightAnswer, Claim } from "./types";
