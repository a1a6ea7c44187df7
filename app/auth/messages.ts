/**
 * User-facing texts of the sign-in layer. The error catalogue's ones (docs/requirements.md#r-errors) are copied word for word;
 * those marked "not in the error catalogue" cover a rule of docs/requirements.md#r-validation the catalogue has no text for.
 */
export const AUTH_MESSAGES = {
  tokenRequired: "a token is required",
  unsupportedAlg: "unsupported alg",
  noMatchingKey: "no key matching kid or alg found in signing keys",
  signatureFailed: "signature validation failed",
  issuerMissing: "issuer was not provided",
  issuerInvalid: "Invalid issuer in token",
  audienceInvalid: "Invalid audience in token",
  /** not in the error catalogue (wording of the library the catalogue comes from) */
  azpInvalid: "Invalid azp in token",
  /** not in the error catalogue */
  iatMissing: "iat was not provided",
  iatInFuture: "iat is in the future",
  /** not in the error catalogue */
  nbfInFuture: "nbf is in the future",
  /** not in the error catalogue */
  expMissing: "exp was not provided",
  expInPast: "exp is in the past",
  subMissing: "No sub present in id_token",
  nonceInvalid: "Invalid nonce in id_token",
  atHashInvalid: "failed to validate at_hash",
  subChanged: "sub in id_token does not match current sub",
  /** not in the error catalogue (oidc-client-ts wording) */
  authTimeChanged: "auth_time in id_token does not match original auth_time",
  /** not in the error catalogue (oidc-client-ts wording) */
  azpChanged: "azp in id_token does not match original azp",
  loginRequired: "login_required",
  /** not in the error catalogue (oidc-client-ts wording) */
  userInfoSubMismatch: "subject from UserInfo response does not match subject in ID Token",
  noIdToken: "No id_token in response",
  noCode: "No code in response",
  noAccessToken: "No access token returned from token endpoint",
  stateMismatch: "State does not match",
  noMatchingState: "No matching state found in storage",
  networkError: "Network Error",
  noUrl: "No url provided",
  popupClosed: "Popup window closed",
  frameTimedOut: "Frame window timed out",
  unknownError: "unknown error",
} as const;

/** Toast texts of docs/requirements.md#r-routes, docs/requirements.md#r-errors. */
export const AUTH_TOASTS = {
  expiredTitle: "Authentication expired",
  expiredDescription: "Logging you back in...",
  failureTitle: "Error",
} as const;
