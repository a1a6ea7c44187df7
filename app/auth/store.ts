import { create } from "zustand";
import { createJSONStorage, persist } from "zustand/middleware";
import { AUTH_STORAGE_KEY } from "./constants";
import { safeReturnPath } from "./returnPath";
import type { AuthState, AuthUser } from "./types";

const signedOut: Pick<AuthState, "user" | "isAuthenticated" | "access_token" | "isAnonymous"> = {
  user: null,
  isAuthenticated: false,
  access_token: null,
  isAnonymous: true,
};

/**
 * docs/requirements.md#r-entities auth state. Tokens live in oidc-client-ts's user record, never in this store's storage:
 * only the return path is persisted, so a reload or the sign-in round trip keeps it.
 */
export const useAuthStore = create<AuthState>()(
  persist((): AuthState => ({ ...signedOut, isRaw: false, redirect_uri: null }), {
    name: AUTH_STORAGE_KEY,
    version: 1,
    // During SSR there is no window: the store then simply isn't persisted.
    storage: createJSONStorage(() => window.localStorage),
    partialize: (s) => ({ redirect_uri: s.redirect_uri }),
    // Read back only the return path, and only if it is still a same-origin path: anything else in
    // that key (an old version, a tampered value such as isAuthenticated: true) is ignored.
    merge: (persisted, current): AuthState => ({
      ...current,
      redirect_uri: safeReturnPath((persisted as { redirect_uri?: unknown } | undefined)?.redirect_uri),
    }),
  }),
);

/** Mirror the user oidc-client-ts holds (or its absence) into the store. */
export function setAuthUser(user: AuthUser | null): void {
  if (!user) {
    useAuthStore.setState(signedOut);
    return;
  }
  useAuthStore.setState({ user, isAuthenticated: true, access_token: user.access_token, isAnonymous: false });
}

/** Plain copy of the docs/requirements.md#r-entities record fields (oidc-client-ts's User also carries state and methods). */
export function toAuthUser(user: AuthUser): AuthUser {
  const { id_token, session_state, access_token, refresh_token, token_type, scope, profile, expires_at } = user;
  return { id_token, session_state, access_token, refresh_token, token_type, scope, profile: { ...profile }, expires_at };
}
