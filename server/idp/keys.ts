import { exportJWK, generateKeyPair, type JWK } from "jose";
import crypto from "node:crypto";
import { eq } from "drizzle-orm";
import type { Db } from "../db/client.ts";
import { appSecrets } from "../db/schema.ts";

export interface SigningKeys {
  /** Private JWKS handed to oidc-provider. */
  privateJwks: { keys: JWK[] };
  /** Public half, what /oidc/jwks publishes and the API verifies against in embedded mode. */
  publicJwks: { keys: JWK[] };
}

const KEYS_SECRET = "oidc.jwks";
const COOKIE_SECRET = "oidc.cookieKeys";

/** Read a secret, or create and store it once. Concurrent first starts agree on the stored one. */
async function loadOrCreate<T>(db: Db, name: string, create: () => Promise<T>): Promise<T> {
  const [existing] = await db.select().from(appSecrets).where(eq(appSecrets.name, name)).limit(1);
  if (existing) return existing.value as T;
  const value = await create();
  await db.insert(appSecrets).values({ name, value }).onConflictDoNothing();
  const [stored] = await db.select().from(appSecrets).where(eq(appSecrets.name, name)).limit(1);
  return stored.value as T;
}

/**
 * The embedded provider's signing keys: generated once (RS256 and ES256), kept in the database,
 * so a restart signs nobody out. The API uses the public half to verify access tokens.
 */
export async function loadSigningKeys(db: Db): Promise<SigningKeys> {
  const privateJwks = await loadOrCreate(db, KEYS_SECRET, async () => {
    const keys: JWK[] = [];
    for (const alg of ["RS256", "ES256"] as const) {
      const { privateKey } = await generateKeyPair(alg, { extractable: true });
      const jwk = await exportJWK(privateKey);
      keys.push({ ...jwk, alg, use: "sig", kid: crypto.randomUUID() });
    }
    return { keys };
  });
  const publicJwks = {
    keys: privateJwks.keys.map(({ d: _d, p: _p, q: _q, dp: _dp, dq: _dq, qi: _qi, ...pub }) => pub),
  };
  return { privateJwks, publicJwks };
}

/** Cookie signing keys of the provider, generated once and kept. */
export async function loadCookieKeys(db: Db): Promise<string[]> {
  return loadOrCreate(db, COOKIE_SECRET, async () => [crypto.randomBytes(32).toString("base64url")]);
}
