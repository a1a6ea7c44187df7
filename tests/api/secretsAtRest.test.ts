import crypto from "node:crypto";
import { eq } from "drizzle-orm";
import { exportJWK, generateKeyPair, importJWK, SignJWT, type JWK } from "jose";
import type { FastifyInstance } from "fastify";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../server/config.ts";
import type { AppContext } from "../../server/context.ts";
import { appSecrets, organizations, tradePlatforms } from "../../server/db/schema.ts";
import { buildApp } from "../../server/http/app.ts";
import { loadSigningKeys } from "../../server/idp/keys.ts";
import { createSecretCipher, keyIdOf } from "../../server/secrets/cipher.ts";
import { secretCipherOf } from "../../server/secrets/context.ts";
import { reencryptPlatformSecrets } from "../../server/secrets/rotation.ts";
import { describeDb, openTestDatabase } from "../helpers/db.ts";
import { refreshTokens, signIn, signUp } from "../helpers/oidcFlow.ts";
import { apiHeaders } from "../helpers/tokens.ts";
import { addTradePlatform } from "./support/fixtures.ts";

const newKey = () => crypto.randomBytes(32);
const b64 = (key: Buffer) => key.toString("base64");
const PASSWORD = "lantern-walrus-opal-93";

/** The identity provider's signing and cookie keys are encrypted at rest, under SECRETS_KEY, with a key id. */
describeDb("the identity provider's keys at rest", () => {
  let database: Awaited<ReturnType<typeof openTestDatabase>>;
  const apps: FastifyInstance[] = [];
  beforeAll(async () => {
    database = await openTestDatabase();
  });
  afterEach(async () => {
    for (const app of apps.splice(0)) await app.close();
  });
  afterAll(() => database?.drop());

  /** A start of Toolbox on the shared database with these keys (a new context: nothing kept in memory). */
  async function start(secretsKey: string): Promise<{ app: FastifyInstance; ctx: AppContext }> {
    const config = loadConfig({ NODE_ENV: "test", LOG_LEVEL: "silent", PUBLIC_URL: "http://localhost:3000", SECRETS_KEY: secretsKey });
    const ctx: AppContext = { config, database };
    const app = await buildApp(ctx, { web: false, logger: false });
    apps.push(app);
    await app.ready();
    return { app, ctx };
  }

  const rows = async () => {
    const all = await database.db.select().from(appSecrets);
    return Object.fromEntries(all.map((r) => [r.name, r.value])) as Record<string, unknown>;
  };

  describe("in order on one database", () => {
    const first = newKey();
    const second = newKey();
    let email: string;
    let accessToken: string;
    let refreshToken: string;

    it("holds no key material in clear: each row is one value encrypted under the key's id", async () => {
      const { app, ctx } = await start(b64(first));
      email = `keys-${Date.now()}@example.test`;
      const tokens = await signUp(app, { name: "Kira Keys", email, password: PASSWORD });
      accessToken = tokens.access_token;
      refreshToken = tokens.refresh_token;

      const stored = await rows();
      expect(Object.keys(stored).sort()).toEqual(["oidc.cookieKeys", "oidc.jwks"]);
      for (const value of Object.values(stored)) {
        expect(value).toEqual({ encrypted: expect.stringMatching(new RegExp(`^v2:${keyIdOf(first)}:`)) });
      }
      const { privateJwks } = await loadSigningKeys(database.db, secretCipherOf(ctx));
      const text = JSON.stringify(stored);
      for (const jwk of privateJwks.keys) {
        for (const part of [jwk.d, jwk.p, jwk.q, jwk.dp, jwk.dq, jwk.qi, jwk.n, jwk.x, jwk.kid]) if (part) expect(text).not.toContain(part);
      }
      expect(text).not.toMatch(/"d"|"kty"|BEGIN/);
    });

    it("a restart still signs and verifies: earlier tokens are accepted, refreshed, and new sign-ins work", async () => {
      const { app } = await start(b64(first));
      expect((await app.inject({ url: "/api/organizations", headers: apiHeaders(accessToken) })).statusCode).toBe(200);
      const refreshed = await refreshTokens(app, refreshToken);
      expect(refreshed.statusCode).toBe(200);
      refreshToken = refreshed.json().refresh_token;
      const again = await signIn(app, { email, password: PASSWORD });
      expect((await app.inject({ url: "/api/organizations", headers: apiHeaders(again.access_token) })).statusCode).toBe(200);
    });

    it("refuses to start with another key, saying which key is missing and nothing secret", async () => {
      const stranger = newKey();
      const error = await start(b64(stranger)).then(
        () => undefined,
        (e: unknown) => e as Error,
      );
      expect(error?.message).toMatch(/identity provider's keys .* cannot be decrypted/);
      expect(error?.message).toContain(`key id ${keyIdOf(first)}`);
      expect(error?.message).not.toContain(b64(first));
      expect(error?.message).not.toContain(b64(stranger));
    });

    it("rotates: started with the new key followed by the old one, it re-encrypts under the new key", async () => {
      const { app } = await start(`${b64(second)},${b64(first)}`);
      for (const value of Object.values(await rows())) {
        expect(value).toEqual({ encrypted: expect.stringMatching(new RegExp(`^v2:${keyIdOf(second)}:`)) });
      }
      expect((await refreshTokens(app, refreshToken)).statusCode).toBe(200);
    });

    it("after the rotation the old key can go", async () => {
      const { app } = await start(b64(second));
      const tokens = await signIn(app, { email, password: PASSWORD });
      expect((await app.inject({ url: "/api/organizations", headers: apiHeaders(tokens.access_token) })).statusCode).toBe(200);
    });
  });
});

describeDb("keys kept in clear by an older Toolbox", () => {
  let database: Awaited<ReturnType<typeof openTestDatabase>>;
  let app: FastifyInstance | undefined;
  afterAll(async () => {
    await app?.close();
    await database?.drop();
  });

  it("are read, kept (nobody is signed out) and re-written encrypted at start", async () => {
    database = await openTestDatabase();
    const { privateKey } = await generateKeyPair("RS256", { extractable: true });
    const jwk: JWK = { ...(await exportJWK(privateKey)), alg: "RS256", use: "sig", kid: "legacy-key" };
    const cookieKey = crypto.randomBytes(32).toString("base64url");
    await database.db.insert(appSecrets).values([
      { name: "oidc.jwks", value: { keys: [jwk] } },
      { name: "oidc.cookieKeys", value: [cookieKey] },
    ]);

    const key = newKey();
    const config = loadConfig({ NODE_ENV: "test", LOG_LEVEL: "silent", PUBLIC_URL: "http://localhost:3000", SECRETS_KEY: b64(key) });
    app = await buildApp({ config, database }, { web: false, logger: false });
    await app.ready();

    const stored = await database.db.select().from(appSecrets);
    const text = JSON.stringify(stored);
    expect(text).not.toContain(jwk.d!);
    expect(text).not.toContain(cookieKey);
    for (const row of stored) expect(row.value).toEqual({ encrypted: expect.stringMatching(new RegExp(`^v2:${keyIdOf(key)}:`)) });

    // The same key still signs: /oidc/jwks publishes it and the API accepts a token it signed.
    expect((await app.inject({ url: "/oidc/jwks" })).json().keys.map((k: JWK) => k.kid)).toEqual(["legacy-key"]);
    const now = Math.floor(Date.now() / 1000);
    const token = await new SignJWT({ scope: "openid toolbox.api", client_id: config.oidc.clientId })
      .setProtectedHeader({ alg: "RS256", kid: "legacy-key", typ: "at+jwt" })
      .setIssuer(config.oidc.authority)
      .setAudience(config.oidc.audience)
      .setSubject("legacy-person")
      .setIssuedAt(now)
      .setExpirationTime(now + 300)
      .sign(await importJWK(jwk, "RS256"));
    expect((await app.inject({ url: "/api/organizations", headers: apiHeaders(token) })).statusCode).toBe(200);
  });
});

describeDb("platform secrets after a key rotation", () => {
  let database: Awaited<ReturnType<typeof openTestDatabase>>;
  afterAll(() => database?.drop());

  it("are re-encrypted under the new key; one no key opens is left as it is", async () => {
    database = await openTestDatabase();
    const config = loadConfig({ NODE_ENV: "test", SECRETS_KEY: b64(newKey()) });
    const ctx: AppContext = { config, database };
    const [org] = await database.db.insert(organizations).values({ name: "Rotation Ltd" }).returning();
    const oldKey = newKey();
    const newer = newKey();
    const before = createSecretCipher(() => oldKey);
    const a = await addTradePlatform(ctx, org!.id, "Old MT5");
    const b = await addTradePlatform(ctx, org!.id, "Lost MT4", "MT4");
    await database.db
      .update(tradePlatforms)
      .set({ secretCiphertext: before.encrypt("manager-pass-a", a.id) })
      .where(eq(tradePlatforms.id, a.id));
    const lost = createSecretCipher(() => newKey()).encrypt("manager-pass-b", b.id);
    await database.db.update(tradePlatforms).set({ secretCiphertext: lost }).where(eq(tradePlatforms.id, b.id));

    const ring = createSecretCipher(() => ({ current: newer, previous: [oldKey] }));
    expect(await reencryptPlatformSecrets(database.db, ring)).toEqual({ reencrypted: 1, unreadable: 1 });
    const [rowA] = await database.db.select().from(tradePlatforms).where(eq(tradePlatforms.id, a.id));
    expect(rowA!.secretCiphertext).toMatch(new RegExp(`^v2:${keyIdOf(newer)}:`));
    expect(createSecretCipher(() => newer).decrypt(rowA!.secretCiphertext!, a.id)).toBe("manager-pass-a");
    const [rowB] = await database.db.select().from(tradePlatforms).where(eq(tradePlatforms.id, b.id));
    expect(rowB!.secretCiphertext).toBe(lost);
    // Nothing left to do on the next start.
    expect(await reencryptPlatformSecrets(database.db, ring)).toEqual({ reencrypted: 0, unreadable: 1 });
  });
});
