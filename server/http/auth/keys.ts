import { createLocalJWKSet, createRemoteJWKSet, errors, type JSONWebKeySet, type JWTVerifyGetKey } from "jose";
import { z } from "zod";

/**
 * Where the API finds the keys (and the issuer) that access tokens are checked against.
 * Keys only ever come from the configured provider, never from the token itself.
 */
export interface KeySource {
  getKey: JWTVerifyGetKey;
  /** Accepted `iss` values: the configured authority (see `discoveredKeySource` for the one exception). */
  issuers(): Promise<string[]>;
}

/** The provider's keys or discovery document cannot be read: the caller is not at fault (503, not 401). */
export class KeySourceUnavailable extends Error {}

/** Key lookups that are the token's fault: its `kid`/`alg` matches no key of the provider. */
function isTokenFault(err: unknown): boolean {
  return err instanceof errors.JWKSNoMatchingKey || err instanceof errors.JWKSMultipleMatchingKeys || err instanceof errors.JOSENotSupported;
}

/** After this long, a token naming an unknown `kid` makes us re-read the keys once (a rotation). */
const KEY_RELOAD_COOLDOWN_MS = 30_000;

/**
 * Embedded provider: its persisted public keys (server/idp/keys.ts), read once per app and
 * re-read at most every 30 s when a token names a key we have not seen.
 */
export function embeddedKeySource(authority: string, loadPublicJwks: () => Promise<JSONWebKeySet>): KeySource {
  let current: Promise<{ jwks: JWTVerifyGetKey; loadedAt: number }> | undefined;
  const load = () =>
    (current ??= loadPublicJwks()
      .then((jwks) => ({ jwks: createLocalJWKSet(jwks), loadedAt: Date.now() }))
      .catch((err: unknown) => {
        current = undefined;
        throw new KeySourceUnavailable("The signing keys of the embedded identity provider cannot be read", { cause: err });
      }));

  return {
    issuers: async () => [authority],
    getKey: async (header, token) => {
      const { jwks, loadedAt } = await load();
      try {
        return await jwks(header, token);
      } catch (err) {
        if (err instanceof errors.JWKSNoMatchingKey && Date.now() - loadedAt > KEY_RELOAD_COOLDOWN_MS) {
          current = undefined;
          return (await load()).jwks(header, token);
        }
        if (isTokenFault(err)) throw err;
        throw new KeySourceUnavailable("The signing keys of the embedded identity provider are not usable", { cause: err });
      }
    },
  };
}

const DiscoveryDocument = z.object({ issuer: z.string().min(1), jwks_uri: z.url() });

const trimSlashes = (s: string) => s.replace(/\/+$/, "");

/**
 * External provider: its discovery document names the JWKS; jose's remote key set caches it and
 * re-fetches on an unknown `kid` (rotation) with a cool-down. The discovery document is read
 * once per app; a failure is not cached, so the next request tries again.
 *
 * Issuer: the configured authority. Some providers (Auth0) publish it with a trailing slash,
 * which our configuration strips; the discovery document's spelling is accepted too, but only
 * when it is the same URL up to trailing slashes — never another issuer.
 */
export function discoveredKeySource(authority: string, fetchImpl: typeof fetch = fetch): KeySource {
  let discovered: Promise<{ issuers: string[]; jwks: JWTVerifyGetKey }> | undefined;
  const discover = () =>
    (discovered ??= (async () => {
      const url = `${authority}/.well-known/openid-configuration`;
      const res = await fetchImpl(url, { signal: AbortSignal.timeout(5000), headers: { accept: "application/json" } });
      if (!res.ok) throw new Error(`GET ${url} answered HTTP ${res.status}`);
      const doc = DiscoveryDocument.parse(await res.json());
      const jwksUri = new URL(doc.jwks_uri);
      if (authority.startsWith("https:") && jwksUri.protocol !== "https:") {
        throw new Error(`jwks_uri ${doc.jwks_uri} is not https`);
      }
      const issuers = [authority];
      if (doc.issuer !== authority && trimSlashes(doc.issuer) === trimSlashes(authority)) issuers.push(doc.issuer);
      return { issuers, jwks: createRemoteJWKSet(jwksUri, { timeoutDuration: 5000 }) };
    })().catch((err: unknown) => {
      discovered = undefined;
      throw new KeySourceUnavailable(`The identity provider's discovery document (${authority}) cannot be read`, { cause: err });
    }));

  return {
    issuers: async () => (await discover()).issuers,
    getKey: async (header, token) => {
      const { jwks } = await discover();
      try {
        return await jwks(header, token);
      } catch (err) {
        if (isTokenFault(err)) throw err;
        throw new KeySourceUnavailable("The identity provider's signing keys cannot be read", { cause: err });
      }
    },
  };
}
