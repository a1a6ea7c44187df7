import crypto from "node:crypto";
import { exportSPKI, generateKeyPair, exportJWK, importJWK, SignJWT, type JWK, type JWTPayload } from "jose";
import type { AppContext } from "../../server/context.ts";
import { ACCESS_TOKEN_CLOCK_TOLERANCE_SECONDS } from "../../server/http/auth/tokens.ts";
import { loadSigningKeys } from "../../server/idp/keys.ts";
import { secretCipherOf } from "../../server/secrets/context.ts";

export interface Person {
  sub: string;
  email: string;
  name: string;
}

let counter = 0;
/** A person nobody else in the test run is. */
export function newPerson(name = "Test Person"): Person {
  const id = `${Date.now().toString(36)}${(counter++).toString(36)}${crypto.randomBytes(3).toString("hex")}`;
  return { sub: `user-${id}`, email: `${id}@example.test`, name };
}

export interface MintOptions {
  alg?: "RS256" | "ES256";
  /** Claims to add or override (undefined removes one, e.g. `{ exp: undefined }`). */
  claims?: Record<string, unknown>;
  /** Header fields to add or override, e.g. `{ kid: "unknown" }`. */
  header?: Record<string, unknown>;
}

/** Forgeries miss the API's clock tolerance by a few seconds: just outside, not far outside. */
const TOLERANCE = ACCESS_TOKEN_CLOCK_TOLERANCE_SECONDS;
const b64url = (v: unknown) => Buffer.from(typeof v === "string" ? v : JSON.stringify(v)).toString("base64url");
const now = () => Math.floor(Date.now() / 1000);

/**
 * Access tokens as the embedded provider would issue them — signed with the app's real persisted
 * keys — and the forgeries the API must refuse.
 */
export async function tokenFactory(ctx: AppContext) {
  const { privateJwks, publicJwks } = await loadSigningKeys(ctx.database.db, secretCipherOf(ctx));
  const jwkFor = (alg: string) => {
    const jwk = privateJwks.keys.find((k) => k.alg === alg);
    if (!jwk) throw new Error(`no ${alg} signing key`);
    return jwk;
  };
  const issuer = ctx.config.oidc.authority;
  const audience = ctx.config.oidc.audience;

  function payloadFor(person: Person, extra: Record<string, unknown> = {}): JWTPayload {
    const base: Record<string, unknown> = {
      iss: issuer,
      aud: audience,
      sub: person.sub,
      email: person.email,
      name: person.name,
      scope: "openid profile email toolbox.api",
      client_id: ctx.config.oidc.clientId,
      iat: now(),
      exp: now() + 600,
      jti: crypto.randomUUID(),
      ...extra,
    };
    for (const [k, v] of Object.entries(base)) if (v === undefined) delete base[k];
    return base;
  }

  async function signWith(jwk: JWK, payload: JWTPayload, header: Record<string, unknown>) {
    const key = await importJWK(jwk, jwk.alg);
    return new SignJWT(payload).setProtectedHeader({ alg: jwk.alg!, kid: jwk.kid, typ: "at+jwt", ...header }).sign(key);
  }

  /** A valid access token for `person` (adjust with options to build invalid ones). */
  function mint(person: Person, opts: MintOptions = {}) {
    return signWith(jwkFor(opts.alg ?? "RS256"), payloadFor(person, opts.claims), opts.header ?? {});
  }

  /** Tokens that must all be refused with 401, by name. */
  /** Keyed by what is wrong with each token; the keys are typed so a test cannot name one that is not here. */
  async function forgeries(person: Person) {
    const rsa = jwkFor("RS256");
    const valid = await mint(person);
    const [h, , s] = valid.split(".");
    const attacker = await generateKeyPair("RS256", { extractable: true });
    const attackerJwk = await exportJWK(attacker.publicKey);
    const rsaPublic = publicJwks.keys.find((k) => k.kid === rsa.kid)!;
    const publicPem = await exportSPKI((await importJWK(rsaPublic, "RS256")) as CryptoKey);

    const hmac = (secret: string | Buffer, header: Record<string, unknown>) => {
      const input = `${b64url(header)}.${b64url(payloadFor(person))}`;
      return `${input}.${crypto.createHmac("sha256", secret).update(input).digest("base64url")}`;
    };

    return {
      expired: await mint(person, { claims: { iat: now() - 3600, exp: now() - TOLERANCE - 5 } }),
      "not yet valid": await mint(person, { claims: { nbf: now() + TOLERANCE + 5 } }),
      "issued in the future": await mint(person, { claims: { iat: now() + TOLERANCE + 5, exp: now() + 7200 } }),
      "wrong issuer": await mint(person, { claims: { iss: "https://attacker.example/oidc" } }),
      "wrong audience": await mint(person, { claims: { aud: "some-other-api" } }),
      "no exp": await mint(person, { claims: { exp: undefined } }),
      "no sub": await mint(person, { claims: { sub: undefined } }),
      "alg none": `${b64url({ alg: "none", typ: "JWT" })}.${b64url(payloadFor(person))}.`,
      "alg none with the real kid": `${b64url({ alg: "none", kid: rsa.kid })}.${b64url(payloadFor(person))}.`,
      "HS256 with the public key PEM as secret": hmac(publicPem, { alg: "HS256", typ: "JWT", kid: rsa.kid }),
      "HS256 with the public JWK as secret": hmac(JSON.stringify(rsaPublic), { alg: "HS256", typ: "JWT", kid: rsa.kid }),
      "unknown kid": await mint(person, { header: { kid: "not-a-key-of-this-provider" } }),
      "RS384 with the RS256 key": await signWith({ ...rsa, alg: "RS384" }, payloadFor(person), {}),
      tampered: `${h}.${b64url(payloadFor(person, { sub: "someone-else" }))}.${s}`,
      "signed by an attacker key carried in the jwk header": await signWith({ ...(await exportJWK(attacker.privateKey)), alg: "RS256" }, payloadFor(person), {
        jwk: attackerJwk,
        kid: undefined,
      }),
      "attacker jwk header with the real kid": await signWith({ ...(await exportJWK(attacker.privateKey)), alg: "RS256", kid: rsa.kid }, payloadFor(person), {
        jwk: attackerJwk,
      }),
      "attacker key behind a jku header": await signWith({ ...(await exportJWK(attacker.privateKey)), alg: "RS256", kid: "attacker" }, payloadFor(person), {
        jku: "https://attacker.example/jwks.json",
      }),
      "not a JWT": "not-a-token",
    };
  }

  return { issuer, audience, mint, forgeries, payloadFor };
}

export type TokenFactory = Awaited<ReturnType<typeof tokenFactory>>;

/** Headers of an API call as the browser sends them (docs/requirements.md#r-calls). */
export function apiHeaders(token: string, organizationId?: string): Record<string, string> {
  return {
    authorization: `Bearer ${token}`,
    "x-requested-with": "XMLHttpRequest",
    ...(organizationId ? { organizationid: organizationId } : {}),
  };
}
