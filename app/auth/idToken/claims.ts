import type { JWTPayload } from "jose";
import { AUTH_MESSAGES as M } from "../messages";
import { IdTokenError } from "./IdTokenError";

/** Claims of the ID token being replaced, for the refresh rules of docs/requirements.md#r-validation. */
export interface PreviousIdClaims {
  sub?: string;
  auth_time?: number;
  azp?: string;
}

export interface ClaimExpectations {
  /** Issuer from the discovery document of the configured authority. */
  issuer: string;
  clientId: string;
  /** Current time in seconds. */
  now: number;
  clockSkewSeconds: number;
  /** Nonce sent with the sign-in request; when set, the token must carry the same. */
  nonce?: string;
  /** Subject signed in before a silent re-authentication: another subject is 'login_required'. */
  currentSub?: string;
  /** Claims of the token a refresh replaces: sub, auth_time and azp must not change. */
  previous?: PreviousIdClaims;
  /** Subject the user-info endpoint answered with, when it was asked. */
  userInfoSub?: string;
}

/** docs/requirements.md#r-validation claim rules, in the order the messages of docs/requirements.md#r-errors are listed. */
export function checkClaims(claims: JWTPayload & { nonce?: unknown; auth_time?: unknown; azp?: unknown }, x: ClaimExpectations): void {
  if (!claims.iss) fail(M.issuerMissing);
  if (claims.iss !== x.issuer) fail(M.issuerInvalid);

  const audiences = Array.isArray(claims.aud) ? claims.aud : claims.aud === undefined ? [] : [claims.aud];
  if (!audiences.includes(x.clientId)) fail(M.audienceInvalid);
  if (claims.azp !== undefined && claims.azp !== x.clientId) fail(M.azpInvalid);

  // Skew widens "now" in the token's favour: a provider clock up to 300 s ahead or behind is accepted.
  if (typeof claims.iat !== "number") fail(M.iatMissing);
  if (claims.iat > x.now + x.clockSkewSeconds) fail(M.iatInFuture);
  if (claims.nbf !== undefined && (typeof claims.nbf !== "number" || claims.nbf > x.now + x.clockSkewSeconds)) fail(M.nbfInFuture);
  if (typeof claims.exp !== "number") fail(M.expMissing);
  if (claims.exp < x.now - x.clockSkewSeconds) fail(M.expInPast);

  if (typeof claims.sub !== "string" || claims.sub === "") fail(M.subMissing);
  if (x.nonce !== undefined && claims.nonce !== x.nonce) fail(M.nonceInvalid);
  if (x.userInfoSub !== undefined && x.userInfoSub !== claims.sub) fail(M.userInfoSubMismatch);
  if (x.currentSub !== undefined && claims.sub !== x.currentSub) fail(M.loginRequired);

  if (x.previous) checkRefresh(claims, x.previous);
}

/** OIDC Core §12.2: a refreshed ID token describes the same authentication of the same subject. */
function checkRefresh(claims: { sub?: string; auth_time?: unknown; azp?: unknown }, previous: PreviousIdClaims): void {
  if (claims.sub !== previous.sub) fail(M.subChanged);
  if (claims.auth_time !== undefined && claims.auth_time !== previous.auth_time) fail(M.authTimeChanged);
  if (claims.azp !== previous.azp) fail(M.azpChanged);
}

function fail(message: string): never {
  throw new IdTokenError(message);
}
