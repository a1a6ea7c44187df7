import { base64url, exportJWK, generateKeyPair, SignJWT, type JWK, type JWTPayload, type CryptoKey } from "jose";
import type { SigningKeySource } from "~/auth/idToken/signingKeys";

/** A fake provider's identity and keys, for signing real ID tokens in tests. */
export const ISSUER = "https://idp.test/oidc";
export const CLIENT_ID = "toolbox-web";
export const NOW = 1_800_000_000;

export interface TestKey {
  alg: string;
  kid: string;
  privateKey: CryptoKey;
  jwk: JWK;
}

export async function createKey(alg: string, kid = `${alg.toLowerCase()}-key`): Promise<TestKey> {
  const { publicKey, privateKey } = await generateKeyPair(alg, { extractable: true });
  return { alg, kid, privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg, use: "sig" } };
}

export function claims(overrides: JWTPayload & Record<string, unknown> = {}): JWTPayload & Record<string, unknown> {
  return { iss: ISSUER, aud: CLIENT_ID, sub: "user-1", iat: NOW, exp: NOW + 3600, nonce: "nonce-1", auth_time: NOW - 60, ...overrides };
}

export async function sign(key: TestKey, payload: JWTPayload, header: Record<string, unknown> = {}): Promise<string> {
  return new SignJWT(payload).setProtectedHeader({ alg: key.alg, kid: key.kid, typ: "JWT", ...header }).sign(key.privateKey);
}

/** A token with any header and no real signature (alg none, forged headers). */
export function unsigned(header: Record<string, unknown>, payload: JWTPayload, signature = ""): string {
  const part = (v: unknown) => base64url.encode(new TextEncoder().encode(JSON.stringify(v)));
  return `${part(header)}.${part(payload)}.${signature}`;
}

/** at_hash computed independently of the code under test. */
export async function atHashFor(accessToken: string, bits: 256 | 384 | 512): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest(`SHA-${bits}`, new TextEncoder().encode(accessToken)));
  return base64url.encode(digest.slice(0, bits / 16));
}

/** A key source over a mutable key set that counts fetches. */
export function keySource(initial: JWK[]): SigningKeySource & { published: JWK[]; fetches: number } {
  const source = {
    published: initial,
    fetches: 0,
    keys: async () => {
      if (source.fetches === 0) source.fetches++;
      return source.published;
    },
    refresh: async () => {
      source.fetches++;
      return source.published;
    },
  };
  return source;
}
