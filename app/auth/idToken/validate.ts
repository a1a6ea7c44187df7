import { AUTH_MESSAGES as M } from "../messages";
import { CLOCK_SKEW_SECONDS } from "../constants";
import { computeAtHash } from "./atHash";
import { checkClaims, type PreviousIdClaims } from "./claims";
import { IdTokenError } from "./IdTokenError";
import { verifySignature } from "./signature";
import type { SigningKeySource } from "./signingKeys";

export interface IdTokenExpectations {
  issuer: string;
  clientId: string;
  nonce?: string;
  /** Access token issued with the ID token; its at_hash, when present, must match. */
  accessToken?: string;
  currentSub?: string;
  previous?: PreviousIdClaims;
  userInfoSub?: string;
  /** Current time in seconds (tests pin it). */
  now?: number;
  clockSkewSeconds?: number;
}

export interface ValidIdToken {
  sub: string;
  claims: Record<string, unknown>;
}

/**
 * Every docs/requirements.md#r-validation rule for an ID token; throws an IdTokenError carrying the docs/requirements.md#r-errors message of the first
 * broken rule. The signature is checked first, so no claim of a forged token is ever trusted.
 */
export async function validateIdToken(token: string | undefined | null, x: IdTokenExpectations, keys: SigningKeySource): Promise<ValidIdToken> {
  if (!token) throw new IdTokenError(M.tokenRequired);
  const { alg, payload } = await verifySignature(token, keys);
  checkClaims(payload, {
    ...x,
    now: x.now ?? Math.floor(Date.now() / 1000),
    clockSkewSeconds: x.clockSkewSeconds ?? CLOCK_SKEW_SECONDS,
  });
  // at_hash is optional in the code flow (OIDC Core §3.1.3.6); when the provider sends it, it must match.
  if (x.accessToken !== undefined && payload.at_hash !== undefined) {
    if (payload.at_hash !== (await computeAtHash(x.accessToken, alg))) throw new IdTokenError(M.atHashInvalid);
  }
  return { sub: payload.sub as string, claims: payload };
}
