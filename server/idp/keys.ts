import { exportJWK, generateKeyPair, type JWK } from "jose";
import crypto from "node:crypto";
import { and, eq } from "drizzle-orm";
import type { Db } from "../db/client.ts";
import { appSecrets } from "../db/schema.ts";
import { SecretUnreadable, type SecretCipher } from "../secrets/cipher.ts";

export interface SigningKeys {
  /** Private JWKS handed to oidc-provider. */
  privateJwks: { keys: JWK[] };
  /** Public half, what /oidc/jwks publishes and the API verifies against in embedded mode. */
  publicJwks: { keys: JWK[] };
}

const KEYS_SECRET = "oidc.jwks";
const COOKIE_SECRET = "oidc.cookieKeys";

/** How an `app_secrets` row holds its value: encrypted (server/secrets/cipher.ts), never in clear. */
interface Sealed {
  encrypted: string;
}

const isSealed = (value: unknown): value is Sealed =>
  typeof value === "object" && value !== null && typeof (value as Sealed).encrypted === "string" && Object.keys(value).length === 1;

/** The row's name is the associated data: a value copied onto another row does not decrypt. */
const associatedData = (name: string) => `app_secrets:${name}`;

function seal<T>(cipher: SecretCipher, name: string, value: T): Sealed {
  return { encrypted: cipher.encrypt(JSON.stringify(value), associatedData(name)) };
}

/**
 * The value of a stored row. Rows from before encryption at rest (plain JSON), and rows under an
 * older key, are re-written under the current key, only if nobody changed them meanwhile.
 */
async function open<T>(db: Db, cipher: SecretCipher, name: string, stored: unknown): Promise<T> {
  if (!isSealed(stored)) {
    await rewrite(db, name, stored, seal(cipher, name, stored));
    return stored as T;
  }
  let value: T;
  try {
    value = JSON.parse(cipher.decrypt(stored.encrypted, associatedData(name))) as T;
  } catch (err) {
    if (!(err instanceof SecretUnreadable)) throw err;
    throw new Error(
      `The identity provider's keys (app_secrets "${name}") cannot be decrypted: ${err.message} ` +
        "Every node must use the same SECRETS_KEY (docs/configuration.md).",
      { cause: err },
    );
  }
  if (cipher.isStale(stored.encrypted)) await rewrite(db, name, stored, seal(cipher, name, value));
  return value;
}

async function rewrite(db: Db, name: string, before: unknown, after: Sealed) {
  await db
    .update(appSecrets)
    .set({ value: after })
    .where(and(eq(appSecrets.name, name), eq(appSecrets.value, before)));
}

/** Read a secret, or create and store it once. Concurrent first starts agree on the stored one. */
async function loadOrCreate<T>(db: Db, cipher: SecretCipher, name: string, create: () => Promise<T>): Promise<T> {
  const [existing] = await db.select().from(appSecrets).where(eq(appSecrets.name, name)).limit(1);
  if (existing) return open<T>(db, cipher, name, existing.value);
  const value = await create();
  await db
    .insert(appSecrets)
    .values({ name, value: seal(cipher, name, value) })
    .onConflictDoNothing();
  const [stored] = await db.select().from(appSecrets).where(eq(appSecrets.name, name)).limit(1);
  return open<T>(db, cipher, name, stored!.value);
}

/**
 * The embedded provider's signing keys: generated once (RS256 and ES256), kept in the database
 * encrypted under SECRETS_KEY, so a restart signs nobody out. The API uses the public half to
 * verify access tokens.
 */
export async function loadSigningKeys(db: Db, cipher: SecretCipher): Promise<SigningKeys> {
  const privateJwks = await loadOrCreate(db, cipher, KEYS_SECRET, async () => {
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

/** Cookie signing keys of the provider, generated once and kept (encrypted). */
export async function loadCookieKeys(db: Db, cipher: SecretCipher): Promise<string[]> {
  return loadOrCreate(db, cipher, COOKIE_SECRET, async () => [crypto.randomBytes(32).toString("base64url")]);
}
