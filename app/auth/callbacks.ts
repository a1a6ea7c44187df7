import { CALLBACK_RETRY_GUARD_KEY, CALLBACK_RETRY_GUARD_MS, MAX_REDIRECT_PARAMS } from "./constants";
import { providerError } from "./errors";
import { loadUserManager } from "./manager";
import { showAuthFailure } from "./notify";
import { parentPath, safeReturnPath } from "./returnPath";
import { userManager } from "./connect";
import { startLoginRedirect } from "./redirects";
import { setAuthUser, toAuthUser, useAuthStore } from "./store";

/**
 * A callback URL is processed once even if the page's effect runs twice (React Strict Mode in
 * development): the second run would find the sign-in state already consumed.
 */
const once = new Map<string, Promise<unknown>>();
function onceFor<T>(kind: string, url: string, run: () => Promise<T>): Promise<T> {
  const key = `${kind} ${url}`;
  if (!once.has(key)) once.set(key, run());
  return once.get(key) as Promise<T>;
}

/** docs/requirements.md#r-constants: about 50 redirect parameters are parsed at most; the rest are dropped unread. */
export function limitRedirectParams(url: string, max = MAX_REDIRECT_PARAMS): string {
  const parsed = new URL(url);
  const params = [...parsed.searchParams];
  if (params.length <= max) return url;
  parsed.search = new URLSearchParams(params.slice(0, max)).toString();
  return parsed.toString();
}

/**
 * /auth-callback: exchange the code, verify the ID token (VerifyingUserManager), store the user.
 * Returns where to go next: the stored return path, else the callback's parent path (docs/requirements.md#r-routes).
 */
export function completeSignIn(url: string = window.location.href): Promise<string> {
  return onceFor("signin", url, async () => {
    const callbackUrl = limitRedirectParams(url);
    // Without a state the library would only say "No state in response"; the provider's own words are better.
    const params = new URL(callbackUrl).searchParams;
    if (!params.get("state")) {
      const error = providerError(params);
      if (error) throw error;
    }
    const um = await userManager();
    const user = await um.signinRedirectCallback(callbackUrl);
    setAuthUser(toAuthUser(user));
    sessionStorage.removeItem(CALLBACK_RETRY_GUARD_KEY);
    const target = safeReturnPath(useAuthStore.getState().redirect_uri) ?? parentPath(new URL(url).pathname);
    useAuthStore.setState({ redirect_uri: null });
    return target;
  });
}

/**
 * docs/requirements.md#r-states: on callback failure, show the error and start a new login — unless the previous callback
 * failed under 10 s ago, which means the next attempt would fail the same way (see constants.ts).
 * Returns whether a new login was started.
 */
export function recoverFromSignInFailure(error: unknown, now: number = Date.now()): boolean {
  showAuthFailure(error);
  const lastFailure = Number(sessionStorage.getItem(CALLBACK_RETRY_GUARD_KEY));
  sessionStorage.setItem(CALLBACK_RETRY_GUARD_KEY, String(now));
  if (lastFailure && now - lastFailure < CALLBACK_RETRY_GUARD_MS) return false;
  void startLoginRedirect();
  return true;
}

/** /silent-renew (inside the renewal iframe): hand the response to the parent window. */
export function completeSilentSignIn(url: string = window.location.href): Promise<void> {
  return onceFor("silent", url, async () => {
    // No listeners here: this page lives in a hidden iframe only to post the response back.
    const um = await loadUserManager();
    await um.signinSilentCallback(limitRedirectParams(url));
  });
}

/** /logout-callback: settle the sign-out response; the browser then goes to the site root (docs/requirements.md#r-routes). */
export function completeSignOut(url: string = window.location.href): Promise<string> {
  return onceFor("signout", url, async () => {
    const um = await userManager();
    await um.signoutRedirectCallback(limitRedirectParams(url));
    return "/";
  });
}
