import { compactVerify, decodeJwt, decodeProtectedHeader, importJWK, type JWK, type JWTPayload } from "jose";
import { AUTH_MESSAGES as M } from "../messages";
import { isAllowedAlg, keyMatches, type AllowedAlg } from "./algorithms";
import { IdTokenError } from "./IdTokenError";
import type { SigningKeySource } from "./signingKeys";

/**
 * Verifies the JWS signature of `token` against the provider's keys and returns its claims.
 * The key always comes from the provider's key set — never from the token's own header (jwk, jku, x5u).
 */
export async function verifySignature(token: string, source: SigningKeySource): Promise<{ alg: AllowedAlg; payload: JWTPayload }> {
  const header = readHeader(token);
  if (!isAllowedAlg(header.alg)) throw new IdTokenError(M.unsupportedAlg);
  const wanted = { alg: header.alg, kid: typeof header.kid === "string" ? header.kid : undefined };

  let candidates = (await source.keys()).filter((k) => keyMatches(k, wanted));
  // An unknown kid usually means the provider rotated its keys since we fetched them: refetch once.
  if (candidates.length === 0) candidates = (await source.refresh()).filter((k) => keyMatches(k, wanted));
  if (candidates.length === 0) throw new IdTokenError(M.noMatchingKey);

  for (const jwk of candidates) {
    if (await verifiesWith(token, jwk, wanted.alg)) return { alg: wanted.alg, payload: readPayload(token) };
  }
  throw new IdTokenError(M.signatureFailed);
}

function readHeader(token: string): { alg?: unknown; kid?: unknown } {
  // A compact JWS has exactly three parts; five would be an (unsupported) JWE.
  if (token.split(".").length !== 3) throw new IdTokenError(M.signatureFailed);
  try {
    return decodeProtectedHeader(token);
  } catch {
    throw new IdTokenError(M.signatureFailed);
  }
}

async function verifiesWith(token: string, jwk: JWK, alg: AllowedAlg): Promise<boolean> {
  try {
    const key = await importJWK({ ...jwk, alg }, alg);
    await compactVerify(token, key, { algorithms: [alg] });
    return true;
  } catch {
    return false;
  }
}

function readPayload(token: string): JWTPayload {
  try {
    return decodeJwt(token);
  } catch {
    throw new IdTokenError(M.signatureFailed);
  }
}
