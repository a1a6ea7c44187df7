import type { JWK } from "jose";

/** docs/requirements.md#r-validation allow-list. Anything else — "none", HMAC, EdDSA — is refused before a key is even looked up. */
export const ALLOWED_ALGS = ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512"] as const;
export type AllowedAlg = (typeof ALLOWED_ALGS)[number];

export function isAllowedAlg(alg: unknown): alg is AllowedAlg {
  return typeof alg === "string" && (ALLOWED_ALGS as readonly string[]).includes(alg);
}

/** SHA-2 size named by the algorithm's suffix (RS256 → SHA-256), used for at_hash. */
export function hashForAlg(alg: AllowedAlg): "SHA-256" | "SHA-384" | "SHA-512" {
  return `SHA-${alg.slice(2)}` as "SHA-256" | "SHA-384" | "SHA-512";
}

const EC_CURVES: Record<string, string> = { ES256: "P-256", ES384: "P-384", ES512: "P-521" };

/**
 * Whether a published key may verify a token with this header: same kid (when the token names one),
 * a signing key, of the algorithm's family and curve, and not pinned to another algorithm.
 */
export function keyMatches(jwk: JWK, header: { alg: AllowedAlg; kid?: string }): boolean {
  if (header.kid !== undefined && jwk.kid !== header.kid) return false;
  if (jwk.use !== undefined && jwk.use !== "sig") return false;
  if (jwk.alg !== undefined && jwk.alg !== header.alg) return false;
  if (header.alg.startsWith("ES")) return jwk.kty === "EC" && jwk.crv === EC_CURVES[header.alg];
  return jwk.kty === "RSA";
}
