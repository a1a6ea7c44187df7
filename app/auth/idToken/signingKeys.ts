import type { JWK } from "jose";

/** The provider's published signing keys, fetched once and refetched on demand (key rotation). */
export interface SigningKeySource {
  /** Cached keys (fetched on first use). */
  keys(): Promise<JWK[]>;
  /** Fetch the key set again, e.g. when a token names a kid we have not seen. */
  refresh(): Promise<JWK[]>;
}

export type FetchJson = (url: string) => Promise<unknown>;

export async function fetchJson(url: string): Promise<unknown> {
  const response = await fetch(url, { headers: { Accept: "application/json" }, credentials: "same-origin" });
  if (!response.ok) throw new Error(`${response.statusText} (${response.status})`);
  return response.json();
}

/**
 * Keys from the jwks_uri of the discovery document. The URI comes from `jwksUri()` (the discovery
 * document oidc-client-ts already fetched), so the keys can only come from the configured authority.
 */
export function createSigningKeySource(jwksUri: () => Promise<string>, getJson: FetchJson = fetchJson): SigningKeySource {
  let cached: Promise<JWK[]> | null = null;
  const load = () => {
    const attempt = jwksUri().then(getJson).then(readKeySet);
    // A failed fetch must not stick: the next token tries again.
    attempt.catch(() => {
      if (cached === attempt) cached = null;
    });
    cached = attempt;
    return attempt;
  };
  return {
    keys: () => cached ?? load(),
    refresh: load,
  };
}

function readKeySet(body: unknown): JWK[] {
  const keys = (body as { keys?: unknown } | null)?.keys;
  if (!Array.isArray(keys)) throw new Error("Missing keys on keyset");
  return keys.filter((k): k is JWK => typeof k === "object" && k !== null && typeof (k as JWK).kty === "string");
}
