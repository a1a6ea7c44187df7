import { useShallow } from "zustand/react/shallow";
import { useProfileStore, type ProfileData } from "./store";
import type { Organization, TradePlatform } from "./types";

/**
 * The one way to read the current organization: these selectors in components (through the hooks
 * below) and `currentOrganizationId()` / `onOrganizationChange()` outside React.
 */
export function selectCurrentOrganizationId(s: Pick<ProfileData, "currentOrganizationId">): string | null {
  return s.currentOrganizationId;
}

/** docs/requirements.md#r-access: the trade platforms shown are those of the current organization. */
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
  return useProfileStore(selectCurrentOrganizationId);
}

/** The current organization's id now, outside React (request headers, the live stream). */
export function currentOrganizationId(): string | null {
  return selectCurrentOrganizationId(useProfileStore.getState());
}

/** Calls `listener` whenever another organization becomes the current one; returns the unsubscribe. */
export function onOrganizationChange(listener: (organizationId: string | null) => void): () => void {
  return useProfileStore.subscribe((s, before) => {
    const id = selectCurrentOrganizationId(s);
    if (id !== selectCurrentOrganizationId(before)) listener(id);
  });
}

export function useTradePlatforms(): TradePlatform[] {
  return useProfileStore(useShallow(selectTradePlatforms));
}

export function useTradePlatform(id: string | undefined): TradePlatform | undefined {
  return useProfileStore((s) => selectTradePlatforms(s).find((p) => p.id === id));
}
