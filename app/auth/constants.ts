/** docs/requirements.md#r-constants sign-in constants, in the units the code uses them. */

/** Sign-in state entries older than this are abandoned and cleared. */
export const STALE_STATE_AGE_SECONDS = 900;
/** Clock skew tolerated on iat, nbf and exp (oidc-client-ts v3 checks no times: our verifier applies it). */
export const CLOCK_SKEW_SECONDS = 300;
/** The access-token-expiring event fires this long before expiry; getFreshUser renews inside this window too. */
export const ACCESS_TOKEN_EXPIRING_NOTICE_SECONDS = 60;
export const CHECK_SESSION_INTERVAL_SECONDS = 2;
export const SILENT_REQUEST_TIMEOUT_SECONDS = 10;
export const POPUP_WIDTH = 500;
export const POPUP_HEIGHT = 500;
/** oidc-client-ts polls a popup for closing every 500 ms; it is fixed there, so this only documents it. */
export const POPUP_CLOSED_CHECK_MS = 500;
export const RESPONSE_TYPE = "code";
/** "About 50" redirect parameters are parsed at most: the callback ignores any beyond. */
export const MAX_REDIRECT_PARAMS = 50;

/** Local storage key of the persisted auth state (only redirect_uri, docs/requirements.md#r-entities). */
export const AUTH_STORAGE_KEY = "toolbox-auth";
/** Prefix of oidc-client-ts entries (user record and sign-in states) in local storage. */
export const OIDC_STORAGE_PREFIX = "oidc.";
/** Name of the cross-tab lock held while one tab renews the shared tokens. */
export const RENEW_LOCK_NAME = "toolbox-auth-renew";
/**
 * A failed sign-in callback starts a new login (docs/requirements.md#r-states) unless the previous one failed this recently:
 * a provider that keeps answering with a token we refuse (e.g. a clock far off) must not loop forever.
 * Same lifetime and storage as the spec's reload guard (docs/requirements.md#r-constants: 10 s, session storage).
 */
export const CALLBACK_RETRY_GUARD_MS = 10_000;
export const CALLBACK_RETRY_GUARD_KEY = "toolbox-auth-callback-failed-at";
