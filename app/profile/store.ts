import { create } from "zustand";
import { createJSONStorage, persist } from "zustand/middleware";
import type { Claim, Organization, PreflightAnswer, TradePlatform } from "./types";

/** docs/requirements.md#r-entities profile state. The first four fields are persisted in local storage; the rest are not. */
export interface ProfileData {
  claims: Claim[];
  currentOrganizationId: string | null;
  organizations: Organization[];
  tradePlatforms: TradePlatform[];
  appConfig: PreflightAnswer | null;
  preflightDone: boolean;
  /** Why the last preflight attempt failed, while it keeps retrying (shown under 'Loading...'). */
  preflightError: string | null;
}

interface ProfileActions {
  setAppConfig: (appConfig: PreflightAnswer) => void;
  /** Stores claims and organizations and keeps a valid current organization (docs/requirements.md#r-states step 2). */
  setClaimsAndOrganizations: (claims: Claim[], organizations: Organization[], preferredOrganizationId?: string) => void;
  setTradePlatforms: (tradePlatforms: TradePlatform[]) => void;
  setPreflightDone: (done: boolean) => void;
  setPreflightError: (error: string | null) => void;
  setCurrentOrganization: (id: string) => void;
  addOrganization: (organization: Organization) => void;
  removeTradePlatform: (id: string) => void;
  setTradePlatformEnable: (id: string, enable: boolean) => void;
}

export type ProfileState = ProfileData & ProfileActions;

export const PROFILE_STORAGE_KEY = "toolbox-profile";

const initialData: ProfileData = {
  claims: [],
  currentOrganizationId: null,
  organizations: [],
  tradePlatforms: [],
  appConfig: null,
  preflightDone: false,
  preflightError: null,
};

/**
 * The current organization stays when it still exists; otherwise the one just created for this
 * person, otherwise the first (docs/requirements.md#r-states: "If no current organization is set, choose the first").
 */
export function chooseOrganization(current: string | null, organizations: readonly Organization[], preferred?: string): string | null {
  const exists = (id: string | null | undefined) => !!id && organizations.some((o) => o.id === id);
  if (exists(current)) return current;
  if (exists(preferred)) return preferred!;
  return organizations[0]?.id ?? null;
}

function persistedFields({ claims, currentOrganizationId, organizations, tradePlatforms }: ProfileData) {
  return { claims, currentOrganizationId, organizations, tradePlatforms };
}

/** Read back only the persisted fields, and only when well formed: storage is anyone's to edit. */
function restorePersisted(stored: unknown, current: ProfileState): ProfileState {
  const s = (stored && typeof stored === "object" ? stored : {}) as Partial<ProfileData>;
  const list = <T>(v: T[] | undefined, fallback: T[]) => (Array.isArray(v) ? v : fallback);
  return {
    ...current,
    claims: list(s.claims, current.claims),
    organizations: list(s.organizations, current.organizations),
    tradePlatforms: list(s.tradePlatforms, current.tradePlatforms),
    currentOrganizationId: typeof s.currentOrganizationId === "string" ? s.currentOrganizationId : current.currentOrganizationId,
  };
}

export const useProfileStore = create<ProfileState>()(
  persist(
    (set) => ({
      ...initialData,
      setAppConfig: (appConfig) => set({ appConfig }),
      setClaimsAndOrganizations: (claims, organizations, preferred) =>
        set((s) => ({ claims, organizations, currentOrganizationId: chooseOrganization(s.currentOrganizationId, organizations, preferred) })),
      setTradePlatforms: (tradePlatforms) => set({ tradePlatforms }),
      setPreflightDone: (preflightDone) => set({ preflightDone, ...(preflightDone ? { preflightError: null } : {}) }),
      setPreflightError: (preflightError) => set({ preflightError }),
      setCurrentOrganization: (id) => set((s) => (s.organizations.some((o) => o.id === id) ? { currentOrganizationId: id } : s)),
      addOrganization: (organization) => set((s) => ({ organizations: [...s.organizations.filter((o) => o.id !== organization.id), organization] })),
      removeTradePlatform: (id) => set((s) => ({ tradePlatforms: s.tradePlatforms.filter((p) => p.id !== id) })),
      setTradePlatformEnable: (id, enable) => set((s) => ({ tradePlatforms: s.tradePlatforms.map((p) => (p.id === id ? { ...p, enable } : p)) })),
    }),
    {
      name: PROFILE_STORAGE_KEY,
      version: 1,
      storage: createJSONStorage(() => localStorage),
      // appConfig and the preflight flags are per page load: a reload runs preflight again.
      partialize: persistedFields,
      merge: restorePersisted,
    },
  ),
);

/** Back to nothing (tests; a different person signing in on this browser). */
export function resetProfile() {
  useProfileStore.setState(initialData);
}
