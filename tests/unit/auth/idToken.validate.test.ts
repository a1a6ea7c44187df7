import { beforeAll, describe, expect, it } from "vitest";
import { SignJWT } from "jose";
import { validateIdToken, type IdTokenExpectations } from "~/auth/idToken/validate";
import { IdTokenError } from "~/auth/idToken/IdTokenError";
import { atHashFor, claims, CLIENT_ID, createKey, ISSUER, keySource, NOW, sign, unsigned, type TestKey } from "./support/idp";

const expectations = (over: Partial<IdTokenExpectations> = {}): IdTokenExpectations => ({
  issuer: ISSUER,
  clientId: CLIENT_ID,
  nonce: "nonce-1",
  now: NOW,
  ...over,
});

let rs256: TestKey;
let keys: Record<string, TestKey>;

beforeAll(async () => {
  const algs = ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512"];
  keys = Object.fromEntries(await Promise.all(algs.map(async (alg) => [alg, await createKey(alg)] as const)));
  rs256 = keys.RS256!;
});

const source = () => keySource(Object.values(keys).map((k) => k.jwk));

async function rejects(token: string | undefined, message: string, over: Partial<IdTokenExpectations> = {}) {
  const failure = validateIdToken(token, expectations(over), source());
  await expect(failure).rejects.toBeInstanceOf(IdTokenError);
  await expect(failure).rejects.toThrow(new RegExp(`^${message.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}$`));
}

describe("ID token: signature and algorithm (docs/requirements.md#r-validation)", () => {
  it.each(["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512"])("accepts a token signed with %s", async (alg) => {
    const token = await sign(keys[alg]!, claims());
    await expect(validateIdToken(token, expectations(), source())).resolves.toMatchObject({ sub: "user-1" });
  });

  it("'a token is required' when there is no token", async () => {
    await rejects(undefined, "a token is required");
    await rejects("", "a token is required");
  });

  it("'unsupported alg' for alg none", async () => {
    await rejects(unsigned({ alg: "none", kid: rs256.kid }, claims()), "unsupported alg");
  });

  it("'unsupported alg' for HS256, even signed with the provider's public key as the secret", async () => {
    // Uint8Array of this realm (jsdom's TextEncoder returns another realm's, which jose refuses).
    const secret = Uint8Array.from(Buffer.from(JSON.stringify(rs256.jwk)));
    const token = await new SignJWT(claims()).setProtectedHeader({ alg: "HS256", kid: rs256.kid }).sign(secret);
    await rejects(token, "unsupported alg");
  });

  it("'unsupported alg' for algorithms outside the list (EdDSA)", async () => {
    const ed = await createKey("EdDSA");
    await rejects(await sign(ed, claims()), "unsupported alg");
  });

  it("'no key matching kid or alg found in signing keys' for an unknown kid, after refetching once", async () => {
    const stranger = await createKey("RS256", "unknown-kid");
    const ks = source();
    await expect(validateIdToken(await sign(stranger, claims()), expectations(), ks)).rejects.toThrow("no key matching kid or alg found in signing keys");
    expect(ks.fetches).toBe(2);
  });

  it("finds a key published after the first fetch (rotation) by refetching", async () => {
    const rotated = await createKey("ES256", "rotated");
    const ks = keySource([rs256.jwk]);
    await ks.keys();
    ks.published = [rs256.jwk, rotated.jwk];
    await expect(validateIdToken(await sign(rotated, claims()), expectations(), ks)).resolves.toMatchObject({ sub: "user-1" });
  });

  it("no matching key when the kid exists but for another algorithm", async () => {
    await rejects(await sign({ ...keys.ES256!, kid: rs256.kid }, claims()), "no key matching kid or alg found in signing keys");
  });

  it("'signature validation failed' for a token signed by another key under a known kid", async () => {
    const impostor = await createKey("RS256", rs256.kid);
    await rejects(await sign(impostor, claims()), "signature validation failed");
  });

  it("'signature validation failed' for a tampered payload", async () => {
    const [header, , signature] = (await sign(rs256, claims())).split(".");
    const forged = unsigned({ alg: "RS256", kid: rs256.kid }, claims({ sub: "admin" })).split(".")[1];
    await rejects(`${header}.${forged}.${signature}`, "signature validation failed");
  });

  it("ignores a key embedded in the token's own header", async () => {
    const attacker = await createKey("RS256", "attacker");
    await rejects(await sign(attacker, claims(), { jwk: attacker.jwk }), "no key matching kid or alg found in signing keys");
  });

  it("'signature validation failed' for something that is not a compact JWS", async () => {
    await rejects("not-a-token", "signature validation failed");
    await rejects("a.b.c.d.e", "signature validation failed");
  });
});

describe("ID token: claims (docs/requirements.md#r-validation)", () => {
  const signed = (over: Record<string, unknown>) => sign(rs256, claims(over));

  it("'issuer was not provided'", async () => rejects(await signed({ iss: undefined }), "issuer was not provided"));
  it("'Invalid issuer in token'", async () => rejects(await signed({ iss: "https://evil.test" }), "Invalid issuer in token"));
  it("'Invalid audience in token' when aud is missing", async () => rejects(await signed({ aud: undefined }), "Invalid audience in token"));
  it("'Invalid audience in token' when aud lacks the client", async () => rejects(await signed({ aud: ["toolbox.api"] }), "Invalid audience in token"));
  it("accepts an audience list that includes the client", async () => {
    await expect(validateIdToken(await signed({ aud: ["other", CLIENT_ID], azp: CLIENT_ID }), expectations(), source())).resolves.toBeTruthy();
  });
  it("refuses an azp that is not the client", async () => rejects(await signed({ azp: "other-client" }), "Invalid azp in token"));

  it("'iat was not provided' when iat is missing", async () => rejects(await signed({ iat: undefined }), "iat was not provided"));
  it("'iat is in the future' beyond the 300 s skew", async () => rejects(await signed({ iat: NOW + 301 }), "iat is in the future"));
  it("accepts iat up to 300 s ahead (clock skew)", async () => {
    await expect(validateIdToken(await signed({ iat: NOW + 300 }), expectations(), source())).resolves.toBeTruthy();
  });
  it("'nbf is in the future' beyond the skew", async () => rejects(await signed({ nbf: NOW + 301 }), "nbf is in the future"));
  it("accepts nbf within the skew", async () => {
    await expect(validateIdToken(await signed({ nbf: NOW + 299 }), expectations(), source())).resolves.toBeTruthy();
  });
  it("'exp was not provided' when exp is missing", async () => rejects(await signed({ exp: undefined }), "exp was not provided"));
  it("'exp is in the past' beyond the 300 s skew", async () => rejects(await signed({ exp: NOW - 301 }), "exp is in the past"));
  it("accepts exp up to 300 s past (clock skew)", async () => {
    await expect(validateIdToken(await signed({ exp: NOW - 300 }), expectations(), source())).resolves.toBeTruthy();
  });

  it("'No sub present in id_token'", async () => rejects(await signed({ sub: undefined }), "No sub present in id_token"));
  it("'Invalid nonce in id_token' for another nonce", async () => rejects(await signed({ nonce: "replayed" }), "Invalid nonce in id_token"));
  it("'Invalid nonce in id_token' when the nonce is missing", async () => rejects(await signed({ nonce: undefined }), "Invalid nonce in id_token"));
  it("'login_required' when a silent sign-in returns another subject", async () => {
    await rejects(await signed({}), "login_required", { currentSub: "user-2" });
  });
  it("user-info sub must equal the id_token sub", async () => {
    await rejects(await signed({}), "subject from UserInfo response does not match subject in ID Token", { userInfoSub: "user-2" });
  });
});

describe("ID token: at_hash (docs/requirements.md#r-validation)", () => {
  const cases = [
    ["RS256", 256],
    ["PS384", 384],
    ["ES512", 512],
    ["ES256", 256],
    ["RS384", 384],
    ["PS512", 512],
  ] as const;

  it.each(cases)("accepts a matching at_hash under %s (SHA-%i)", async (alg, bits) => {
    const token = await sign(keys[alg]!, claims({ at_hash: await atHashFor("access-token-1", bits) }));
    await expect(validateIdToken(token, expectations({ accessToken: "access-token-1" }), source())).resolves.toBeTruthy();
  });

  it.each(cases)("'failed to validate at_hash' under %s for another access token", async (alg, bits) => {
    const token = await sign(keys[alg]!, claims({ at_hash: await atHashFor("access-token-1", bits) }));
    await rejects(token, "failed to validate at_hash", { accessToken: "access-token-2" });
  });

  it("'failed to validate at_hash' when the hash size does not follow the algorithm", async () => {
    const token = await sign(keys.RS512!, claims({ at_hash: await atHashFor("access-token-1", 256) }));
    await rejects(token, "failed to validate at_hash", { accessToken: "access-token-1" });
  });
});

describe("ID token: refresh (docs/requirements.md#r-validation)", () => {
  const previous = { sub: "user-1", auth_time: NOW - 60, azp: undefined };

  it("accepts a refreshed token for the same sign-in", async () => {
    await expect(
      validateIdToken(await sign(rs256, claims({ nonce: undefined })), expectations({ nonce: undefined, previous }), source()),
    ).resolves.toBeTruthy();
  });
  it("'sub in id_token does not match current sub'", async () => {
    await rejects(await sign(rs256, claims({ sub: "user-2" })), "sub in id_token does not match current sub", { previous });
  });
  it("refuses a changed auth_time", async () => {
    await rejects(await sign(rs256, claims({ auth_time: NOW })), "auth_time in id_token does not match original auth_time", { previous });
  });
  it("refuses a changed azp", async () => {
    await rejects(await sign(rs256, claims({ azp: CLIENT_ID })), "azp in id_token does not match original azp", { previous });
  });
});
