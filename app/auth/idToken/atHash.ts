import { base64url } from "jose";
import { hashForAlg, type AllowedAlg } from "./algorithms";

/** OIDC Core §3.1.3.6: base64url of the left half of the hash of the access token's ASCII octets. */
export async function computeAtHash(accessToken: string, alg: AllowedAlg): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest(hashForAlg(alg), new TextEncoder().encode(accessToken)));
  return base64url.encode(digest.slice(0, digest.length / 2));
}
