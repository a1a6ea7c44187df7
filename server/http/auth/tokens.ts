import { errors, jwtVerify, type JWTPayload, type JWTVerifyGetKey } from "jose";
import type { Caller } from "./request.ts";
import { KeySourceUnavailable, type KeySource } from "./keys.ts";

/** docs/requirements.md#r-validation's allow-list, exactly: asymmetric only, so never `none` and never an HMAC secret. */
export const ALLOWED_ALGORITHMS = ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512"];
/**
 * How far the API's clock may disagree with the identity provider's, for `exp`, `nbf` and `iat` of
 * access tokens. Deliberately not docs/requirements.md#r-constants's 300 s, which is the browser's rule for ID tokens (a
 * person's computer clock may be minutes off; servers run NTP): a token the provider let expire
 * stops working here within a minute. docs/security.md lists the lifetimes.
 */
export const ACCESS_TOKEN_CLOCK_TOLERANCE_SECONDS = 60;

/** Header parameters that carry or point at a key: a token never chooses its own key. */
const KEY_CARRYING_HEADERS = ["jwk", "jku", "x5u", "x5c"] as const;

/** The token is missing or not acceptable: 401, with a message a person can act on. */
export class TokenRejected extends Error {}

/** What the guard keeps of a verified access token. */
export interface VerifiedToken {
  caller: Caller;
  /** `exp`, in seconds since the epoch. */
  exp: number;
  /** The embedded provider's grant behind the token (`grant_id` claim), checked against revocations. */
  grantId?: string;
}

/** The claim in which the embedded provider names the grant of an access token (server/idp/provider.ts). */
export const GRANT_ID_CLAIM = "grant_id";
/** How the person signed in (RFC 8176): the embedded provider says ["pwd"] or ["pwd","otp"]. */
export const AMR_CLAIM = "amr";

/**
 * The claim in which the embedded provider marks an API client's access token (client credentials,
 * server/idp/provider.ts): the organization the client belongs to. Its `sub` is the client id.
 */
export const API_CLIENT_CLAIM = "api_client_org";

export type TokenVerifier = (token: string) => Promise<VerifiedToken>;

export function createTokenVerifier(opts: { keys: KeySource; audience: string }): TokenVerifier {
  const getKey: JWTVerifyGetKey = (header, token) => {
    const carried = KEY_CARRYING_HEADERS.filter((h) => h in header);
    if (carried.length > 0) {
      throw new TokenRejected(`The access token is not valid: it names its own key (${carried.join(", ")} header), which is never trusted.`);
    }
    return opts.keys.getKey(header, token);
  };

  return async (token) => {
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, getKey, {
        issuer: await opts.keys.issuers(),
        audience: opts.audience,
        algorithms: ALLOWED_ALGORITHMS,
        clockTolerance: ACCESS_TOKEN_CLOCK_TOLERANCE_SECONDS,
        requiredClaims: ["exp", "sub"],
      }));
    } catch (err) {
      if (err instanceof KeySourceUnavailable || err instanceof TokenRejected) throw err;
      throw new TokenRejected(describe(err), { cause: err });
    }
    // jose checks `iat` only with maxTokenAge; docs/requirements.md#r-validation also refuses tokens issued in the future.
    if (typeof payload.iat === "number" && payload.iat > Date.now() / 1000 + ACCESS_TOKEN_CLOCK_TOLERANCE_SECONDS) {
      throw new TokenRejected("The access token is not valid: it was issued in the future.");
    }
    if (typeof payload.sub !== "string" || payload.sub.length === 0) {
      throw new TokenRejected("The access token is not valid: it does not name the user (sub).");
    }
    const grantId = payload[GRANT_ID_CLAIM];
    return { caller: callerFrom(payload), exp: payload.exp as number, ...(typeof grantId === "string" && grantId !== "" ? { grantId } : {}) };
  };
}

/** Who the token speaks for. External providers without an `email` claim often put it in `preferred_username`. */
function callerFrom(payload: JWTPayload): Caller {
  const str = (v: unknown) => (typeof v === "string" && v.trim() !== "" ? v.trim() : null);
  const clientOrganization = str(payload[API_CLIENT_CLAIM]);
  if (clientOrganization)
    return {
      sub: payload.sub as string,
      email: null,
      emailVerified: false,
      name: str(payload.name),
      amr: [],
      client: { organizationId: clientOrganization.toLowerCase() },
    };
  const preferred = str(payload.preferred_username);
  const given = [str(payload.given_name), str(payload.family_name)].filter(Boolean).join(" ");
  const amr = payload[AMR_CLAIM];
  const authTime = typeof payload.auth_time === "number" && Number.isFinite(payload.auth_time) ? payload.auth_time : undefined;
  const email = str(payload.email);
  return {
    sub: payload.sub as string,
    email: email ?? (preferred?.includes("@") ? preferred : null),
    // Only the boolean `true` of OpenID Connect Core's `email_verified`, and only for the `email`
    // claim itself: a `preferred_username` that looks like an address was never verified as one.
    emailVerified: email !== null && payload.email_verified === true,
    name: str(payload.name) ?? (given || null),
    // A single string is tolerated (some providers send one); anything else means "not said".
    amr: (Array.isArray(amr) ? amr : [amr]).filter((v): v is string => typeof v === "string" && v !== ""),
    ...(authTime !== undefined ? { authTime } : {}),
  };
}

/** Readable reason; it names what is wrong, never echoes the token or its claims. */
function describe(err: unknown): string {
  if (err instanceof errors.JWTExpired) return "The access token has expired. Sign in again.";
  if (err instanceof errors.JWTClaimValidationFailed) {
    if (err.reason === "missing") return `The access token is not valid: it has no ${err.claim} claim.`;
    switch (err.claim) {
      case "nbf":
        return "The access token is not valid yet (not before a later time).";
      case "iss":
        return "The access token is not valid: it was not issued by the identity provider this API trusts.";
      case "aud":
        return "The access token is not valid: it is not meant for this API (audience).";
      default:
        return `The access token is not valid: its ${err.claim} claim is not acceptable.`;
    }
  }
  if (err instanceof errors.JOSEAlgNotAllowed || err instanceof errors.JOSENotSupported) {
    return `The access token is not valid: its signing algorithm is not accepted (allowed: ${ALLOWED_ALGORITHMS.join(", ")}).`;
  }
  if (err instanceof errors.JWKSNoMatchingKey) return "The access token is not valid: no signing key of the identity provider matches it.";
  if (err instanceof errors.JWKSMultipleMatchingKeys) return "The access token is not valid: it does not name its signing key (kid).";
  if (err instanceof errors.JWSSignatureVerificationFailed) return "The access token is not valid: its signature does not verify.";
  return "The access token is not valid: it is malformed.";
}
