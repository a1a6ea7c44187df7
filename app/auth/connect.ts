import type { User } from "oidc-client-ts";
import { loadUserManager, type VerifyingUserManager } from "./manager";
import { showAuthFailure } from "./notify";
import { createCrossTabLock, type CrossTabLock } from "./renew/lock";
import { renewUnderLock } from "./renew/renewUnderLock";
import { watchStoredUser } from "./renew/tabSync";
import { setAuthUser, toAuthUser } from "./store";

const wired = new WeakSet<VerifyingUserManager>();
let lock: CrossTabLock | null = null;
let renewing: Promise<User | null> | null = null;

export const nowSeconds = () => Math.floor(Date.now() / 1000);

/** The page's UserManager, with this layer's listeners attached once. */
export async function userManager(): Promise<VerifyingUserManager> {
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

/** Another tab stored, renewed or removed the shared user: follow it (and its expiry timers). */
async function adoptFromOtherTab(um: VerifyingUserManager): Promise<void> {
  try {
    const user = await um.getUser(true);
    if (!user) await um.events.unload();
  } catch (error) {
    showAuthFailure(error);
  }
}
