import type { PublicConfig } from "@core/publicConfig";
import type { VerifyingUserManager } from "./client/createUserManager";
import { OIDC_STORAGE_PREFIX } from "./constants";

export type { VerifyingUserManager };

let config: PublicConfig | null = null;
let loading: Promise<VerifyingUserManager> | null = null;

/**
 * Tell the sign-in layer which provider to use. The route guard and the callback pages do this from
 * the root loader's `config`; calling it again with the same provider is a no-op.
 */
export function configureAuth(next: PublicConfig): void {
  if (config && config.authority === next.authority && config.clientId === next.clientId && config.scope === next.scope && config.resource === next.resource) {
    return;
  }
  config = next;
  loading = null;
}

export function isAuthConfigured(): boolean {
  return config !== null;
}

/**
 * Local storage key of the user record, as oidc-client-ts names it (`user:<authority>:<client_id>`,
 * under our prefix); null before the provider is configured. tests/unit/auth/userManager.test.ts
 * checks it against the manager's own `storageKey`.
 */
export function storedUserKey(): string | null {
  return config ? `${OIDC_STORAGE_PREFIX}user:${config.authority}:${config.clientId}` : null;
}

/**
 * The one UserManager of this page, created on first use. oidc-client-ts is imported here and only
 * here, dynamically, so server rendering never loads it.
 */
export function loadUserManager(): Promise<VerifyingUserManager> {
  if (typeof window === "undefined") return Promise.reject(new Error("Sign-in runs in the browser only"));
  const current = config;
  if (!current) return Promise.reject(new Error("Sign-in is not configured"));
  if (!loading) {
    const attempt = import("./client/createUserManager").then((m) => m.createUserManager(current, window.location.origin));
    // A failed chunk load (e.g. a deploy in between) must not stick: the next call retries.
    attempt.catch(() => {
      if (loading === attempt) loading = null;
    });
    loading = attempt;
  }
  return loading;
}
