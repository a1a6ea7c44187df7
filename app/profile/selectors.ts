import { useShallow } from "zustand/react/shallow";
import { useProfileStore, type ProfileData } from "./store";
import type { Organization, TradePlatform } from "./types";

/** SPEC §6: the trade platforms shown are those of the current organization. */
export function selectTradePlatforms(s: Pick<ProfileData, "tradePlatforms" | "currentOrganizationId">): TradePlatform[] {
  return s.tradePlatforms.filter((p) => p.organizationId === s.currentOrganizationId);
}

export function selectCurrentOrganization(s: Pick<ProfileData, "organizations" | "currentOrganizationId">): Organization | undefined {
  return s.organizations.find((o) => o.id === s.currentOrganizationId);
}

/** The one way to read the current organization in components. */
export function useCurrentOrganization(): Organization | undefined {
  return useProfileStore(selectCurrentOrganization);
}

export function useCurrentOrganizationId(): string | null {
  return useProfileStore((s) => s.currentOrganizationId);
}

export function useTradePlatforms(): TradePlatform[] {
  return useProfileStore(useShallow(selectTradePlatforms));
}

export function useTradePlatform(id: string | undefined): TradePlatform | undefined {
  return useProfileStore((s) => selectTradePlatforms(s).find((p) => p.id === id));
}
