/**
 * Public face of the browser sign-in layer (CONTRACT: the UI shell and the API client use only these).
 * Implementation lives beside this file; oidc-client-ts is loaded in the browser only.
 *
 * - useAuthStore: SPEC §3 auth state {user, isAuthenticated, access_token, isAnonymous, isRaw, redirect_uri};
 *   only redirect_uri is persisted (local storage).
 * - useAuthGuard(pathname): runs the SPEC §2 route guard and says which shell mode to render:
 *   "raw" (callback, silent-renew, health), "anonymous" (signing in: show the 'Signing in...' placeholder),
 *   or "authenticated".
 * - getFreshUser(): the signed-in user, refreshed first if its access token is about to expire (used before every API call).
 * - relogin(): store the current path as the return target and go to the provider again.
 * - logout(): sign out at the provider, then back to the site root.
 */
export {};
