/**
 * Public face of the browser sign-in layer. The UI shell and the API client import only from here.
 * Nothing here loads oidc-client-ts: it is imported dynamically, in the browser, on first use.
 */
export type { AuthState, AuthUser, ShellMode } from "./types";
export { useAuthStore } from "./store";
export { useAuthGuard } from "./guard";
export { isRawPath } from "./rawPaths";
export { configureAuth } from "./manager";
export { getFreshUser } from "./session";
export { logout, relogin } from "./redirects";
export { completeSignIn, completeSignOut, completeSilentSignIn, recoverFromSignInFailure } from "./callbacks";
export { showAuthFailure } from "./notify";
