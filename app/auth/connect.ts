import type { User } from "oidc-client-ts";
import { ACCESS_TOKEN_EXPIRING_NOTICE_SECONDS } from "./constants";
import { loadUserManager, storedUserKey, type VerifyingUserManager } from "./manager";
import { showAuthFailure } from "./notify";
import { createCrossTabLock, type CrossTabLock } from "./renew/lock";
import { needsRenewal, renewUnderLock } from "./renew/renewUnderLock";
import { watchStoredUser } from "./renew/tabSync";
import { setAuthUser, toAuthUser } from "./store";
import type { AuthUser } from "./types";

const wired = new WeakSet<VerifyingUserManager>();
let lock: CrossTabLock | null = null;
let renewing: Promise<User | null> | null = null;

export const nowSeconds = () => Math.floor(Date.now() / 1000);

/** Set once anything has asked for the UserManager: from then on it alone reads the stored user. */
let managerWanted = false;
/** While the stored user is read without the manager: the renewal timer and the other tabs' watch. */
let light: { stop(): void } | null = null;

/** The page's UserManager, with this layer's listeners attached once. */
export async function userManager(): Promise<VerifyingUserManager> {
  managerWanted = true;
  light?.stop();
  light = null;
  const um = await loadUserManager();
  if (!wired.has(um)) {
    wired.add(um);
    um.events.addUserLoaded((user) => setAuthUser(toAuthUser(user)));
    um.events.addUserUnloaded(() => setAuthUser(null));
    // Automatic renewal (docs/requirements.md#r-states), fired 60 s before the access token expires.
    um.events.addAccessTokenExpiring(() => void renewInBackground(um));
    // docs/requirements.md#r-states: a silent renew failure raises an error event; it is logged and shown (docs/requirements.md#r-errors).
    um.events.addSilentRenewError((error) => showAuthFailure(error));
    watchStoredUser(um.storageKey, () => void adoptFromOtherTab(um));
  }
  return um;
}

/** One renewal at a time in this tab, and at most one across tabs (renew/renewUnderLock.ts). */
export function renewShared(um: VerifyingUserManager): Promise<User | null> {
  renewing ??= renewUnderLock(
    {
      readStoredUser: () => um.readStoredUser(),
      adoptStoredUser: () => um.getUser(true),
      renew: () => um.signinSilent(),
    },
    (lock ??= createCrossTabLock()),
    nowSeconds,
  ).finally(() => {
    renewing = null;
  });
  return renewing;
}

export function raiseSilentRenewError(um: VerifyingUserManager, error: unknown): Promise<void> {
  return um.events._raiseSilentRenewError(error instanceof Error ? error : new Error(String(error)));
}

async function renewInBackground(um: VerifyingUserManager): Promise<void> {
  try {
    await renewShared(um);
  } catch (error) {
    // The user stays until its token expires; then the next API call gets no token and signs in again.
    await raiseSilentRenewError(um, error);
  }
}

/**
 * The stored user as oidc-client-ts's `getUser` would return it, read from local storage without
 * loading oidc-client-ts (its chunk is a fifth of a returning person's first screen: issue 30). Only
 * while the manager has not been asked for, and only for a record whose token is not due for
 * renewal; null otherwise (the caller then goes through the manager). The record was verified before
 * it was stored (client/VerifyingUserManager.ts); `getUser` does no more than parse it either.
 *
 * Reading it arms what the manager would have: when the token enters its 60 s notice `onDue` runs
 * (the caller renews through the manager), and another tab's change loads the manager and follows it.
 */
export function storedUserWithoutManager(onDue: () => void): AuthUser | null {
  if (managerWanted || typeof window === "undefined") return null;
  const key = storedUserKey();
  if (!key) return null;
  let user: AuthUser | null;
  try {
    const text = window.localStorage.getItem(key);
    user = text ? (JSON.parse(text) as AuthUser) : null;
  } catch {
    return null; // unreadable: the manager decides
  }
  if (!user || typeof user.access_token !== "string" || !user.access_token || needsRenewal(user, nowSeconds())) return null;
  if (!light) {
    const dueMs = user.expires_at === undefined ? null : (user.expires_at - ACCESS_TOKEN_EXPIRING_NOTICE_SECONDS - nowSeconds()) * 1000;
    const timer = dueMs === null ? undefined : setTimeout(onDue, Math.min(Math.max(dueMs, 0), 2 ** 31 - 1));
    const unwatch = watchStoredUser(key, () => void userManager().then(adoptFromOtherTab));
    light = {
      stop() {
        clearTimeout(timer);
        unwatch();
      },
    };
  }
  return user;
}

/** Another tab stored, renewed or removed the shared user: follow it (and its expiry timers). */
async function adoptFromOtherTab(um: VerifyingUserManager): Promise<void> {
  try {
    const user = await um.getUser(true);
    if (!user) await um.events.unload();
  } catch (error) {
    showAuthFailure(error);
  }
}
