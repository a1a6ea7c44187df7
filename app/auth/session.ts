import type { User } from "oidc-client-ts";
import { nowSeconds, raiseSilentRenewError, renewShared, storedUserWithoutManager, userManager } from "./connect";
import { isAuthConfigured, type VerifyingUserManager } from "./manager";
import { showAuthExpired, showAuthFailure } from "./notify";
import { isLeaving, rememberReturnPath, startLoginRedirect } from "./redirects";
import { needsRenewal } from "./renew/renewUnderLock";
import { setAuthUser, toAuthUser, useAuthStore } from "./store";
import type { AuthUser } from "./types";

/** The stored user, renewed first when it is expired or about to be; null when there is none usable. */
async function loadFreshUser(um: VerifyingUserManager): Promise<User | null> {
  const user = await um.getUser();
  if (!user || !needsRenewal(user, nowSeconds())) return mirror(user);
  try {
    return mirror(await renewShared(um));
  } catch (error) {
    await raiseSilentRenewError(um, error);
    // Still valid for a few seconds: use it. Expired: the caller signs in again.
    return user.expired ? null : user;
  }
}

/**
 * The signed-in user: straight from storage while its token is good and oidc-client-ts has not been
 * needed yet (connect.ts), else through the manager. When the stored token comes due, the manager
 * loads and renews it (as its own expiring event would).
 */
async function currentUser(): Promise<AuthUser | null> {
  const stored = storedUserWithoutManager(() => void getFreshUser());
  if (stored) {
    if (useAuthStore.getState().access_token !== stored.access_token) setAuthUser(toAuthUser(stored));
    return toAuthUser(stored);
  }
  const user = await loadFreshUser(await userManager());
  return user ? toAuthUser(user) : null;
}

/** Keep the store on the user oidc-client-ts holds (without re-rendering for an unchanged token). */
function mirror(user: User | null): User | null {
  if (!user) setAuthUser(null);
  else if (useAuthStore.getState().access_token !== user.access_token) setAuthUser(toAuthUser(user));
  return user;
}

/**
 * The guard's check for a non-raw path (docs/requirements.md#r-routes): store the return target, load the user (renewing
 * an expired token), and when there is none, say so and go to the provider.
 */
export async function ensureSignedIn(fullPath: string): Promise<void> {
  rememberReturnPath(fullPath);
  let user: AuthUser | null = null;
  try {
    user = await currentUser();
  } catch (error) {
    showAuthFailure(error); // docs/requirements.md#r-errors: fetching the user failed
  }
  if (user || isLeaving()) return;
  showAuthExpired();
  await startLoginRedirect();
}

/** The signed-in user for an API call, renewed under the cross-tab lock when it expires within 60 s. */
export async function getFreshUser(): Promise<AuthUser | null> {
  if (typeof window === "undefined" || !isAuthConfigured()) return null;
  try {
    return await currentUser();
  } catch (error) {
    showAuthFailure(error);
    return null;
  }
}
