import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { createUserManager } from "~/auth/client/createUserManager";
import type { VerifyingUserManager } from "~/auth/client/VerifyingUserManager";
import { authErrorText } from "~/auth/errors";
import { configureAuth, storedUserKey } from "~/auth/manager";
import { atHashFor, claims, createKey, sign, type TestKey } from "./support/idp";
import { capturingNavigator, config, fakeProvider, nowSeconds, ORIGIN, s256 } from "./support/fakeProvider";

let key: TestKey;
let impostor: TestKey;
let provider: ReturnType<typeof fakeProvider>;
let navigator: ReturnType<typeof capturingNavigator>;
let um: VerifyingUserManager;

beforeAll(async () => {
  key = await createKey("RS256", "k1");
  impostor = await createKey("RS256", "k1");
});

beforeEach(() => {
  localStorage.clear();
  provider = fakeProvider(() => [key]);
  vi.stubGlobal("fetch", provider.fetch);
  navigator = capturingNavigator();
  um = createUserManager(config, ORIGIN, { redirectNavigator: navigator });
});

afterEach(() => vi.unstubAllGlobals());

const storedUser = () => localStorage.getItem(um.storageKey);

it("names the stored user record as the sign-in layer reads it without oidc-client-ts (app/auth/connect.ts)", () => {
  configureAuth(config);
  expect(storedUserKey()).toBe(um.storageKey);
});

/** Starts a sign-in and returns the authorize request's parameters. */
async function authorize(): Promise<URLSearchParams> {
  await um.signinRedirect();
  return new URL(navigator.urls.at(-1)!).searchParams;
}

async function idToken(overrides: Record<string, unknown> = {}, signer: TestKey = key) {
  const now = nowSeconds();
  return sign(signer, claims({ iat: now, exp: now + 3600, auth_time: now - 5, ...overrides }));
}

async function tokens(accessToken: string, refreshToken: string, idOverrides: Record<string, unknown>, signer?: TestKey) {
  return {
    access_token: accessToken,
    token_type: "Bearer",
    expires_in: 600,
    refresh_token: refreshToken,
    scope: config.scope,
    id_token: await idToken({ at_hash: await atHashFor(accessToken, 256), ...idOverrides }, signer),
  };
}

async function signIn(): Promise<void> {
  const request = await authorize();
  provider.onToken = async () => tokens("at-1", "rt-1", { nonce: request.get("nonce") });
  await um.signinRedirectCallback(`${ORIGIN}/auth-callback?code=code-1&state=${request.get("state")}`);
}

describe("sign-in through oidc-client-ts with ID token verification", () => {
  it("sends a PKCE S256 code request with a nonce and the resource indicator", async () => {
    const request = await authorize();
    expect(Object.fromEntries(request)).toMatchObject({
      client_id: "toolbox-web",
      response_type: "code",
      scope: config.scope,
      redirect_uri: `${ORIGIN}/auth-callback`,
      code_challenge_method: "S256",
      resource: "urn:toolbox:api",
    });
    expect(request.get("nonce")).toMatch(/^[\w-]{43}$/);
    expect(request.get("state")).toBeTruthy();
  });

  it("exchanges the code (verifier, resource), verifies the ID token and stores the user", async () => {
    const request = await authorize();
    provider.onToken = async () => tokens("at-1", "rt-1", { nonce: request.get("nonce") });
    const user = await um.signinRedirectCallback(`${ORIGIN}/auth-callback?code=code-1&state=${request.get("state")}`);

    const form = provider.tokenRequests[0]!;
    expect(form.get("grant_type")).toBe("authorization_code");
    expect(form.get("resource")).toBe("urn:toolbox:api");
    expect(await s256(form.get("code_verifier")!)).toBe(request.get("code_challenge"));
    expect(user.profile.sub).toBe("user-1");
    expect(JSON.parse(storedUser()!)).toMatchObject({ access_token: "at-1", refresh_token: "rt-1" });
  });

  it.each([
    ["a replayed nonce", { nonce: "someone-elses" }, "Invalid nonce in id_token"],
    ["a foreign issuer", { iss: "https://evil.test" }, "Invalid issuer in token"],
    ["another audience", { aud: "other-client" }, "Invalid audience in token"],
    ["an expired token", { exp: nowSeconds() - 3600 }, "exp is in the past"],
    ["a token from the future", { iat: nowSeconds() + 3600 }, "iat is in the future"],
    ["a wrong at_hash", { at_hash: "AAAAAAAAAAAAAAAAAAAAAA" }, "failed to validate at_hash"],
  ])("never stores a user whose ID token has %s", async (_case, overrides, message) => {
    const request = await authorize();
    provider.onToken = async () => tokens("at-1", "rt-1", { nonce: request.get("nonce"), ...overrides });
    const failure = um.signinRedirectCallback(`${ORIGIN}/auth-callback?code=code-1&state=${request.get("state")}`);
    await expect(failure.catch(authErrorText)).resolves.toBe(message);
    expect(storedUser()).toBeNull();
  });

  it("never stores a user whose ID token is signed by another key", async () => {
    const request = await authorize();
    provider.onToken = async () => tokens("at-1", "rt-1", { nonce: request.get("nonce") }, impostor);
    await expect(um.signinRedirectCallback(`${ORIGIN}/auth-callback?code=c&state=${request.get("state")}`)).rejects.toThrow("signature validation failed");
    expect(storedUser()).toBeNull();
  });

  it("refuses a response without an ID token", async () => {
    const request = await authorize();
    provider.onToken = async () => ({ access_token: "at-1", token_type: "Bearer", expires_in: 600, scope: "toolbox.api" });
    await expect(um.signinRedirectCallback(`${ORIGIN}/auth-callback?code=c&state=${request.get("state")}`)).rejects.toThrow("No id_token in response");
    expect(storedUser()).toBeNull();
  });

  it("turns a provider error response into an error with its description", async () => {
    const request = await authorize();
    const url = `${ORIGIN}/auth-callback?error=access_denied&error_description=The%20user%20said%20no&state=${request.get("state")}`;
    await expect(um.signinRedirectCallback(url)).rejects.toThrow("The user said no");
  });

  it("'State does not match' is not reachable by a forged state: 'No matching state found in storage'", async () => {
    await authorize();
    await expect(um.signinRedirectCallback(`${ORIGIN}/auth-callback?code=c&state=forged`)).rejects.toThrow("No matching state found in storage");
  });
});

describe("refresh with ID token verification", () => {
  it("refreshes with the rotating refresh token and the resource, and stores the verified result", async () => {
    await signIn();
    const original = JSON.parse(storedUser()!);
    provider.onToken = async () => tokens("at-2", "rt-2", { nonce: undefined, auth_time: decodeAuthTime(original.id_token) });
    const user = await um.signinSilent();

    const form = provider.tokenRequests.at(-1)!;
    expect(form.get("grant_type")).toBe("refresh_token");
    expect(form.get("refresh_token")).toBe("rt-1");
    expect(form.get("resource")).toBe("urn:toolbox:api");
    expect(user?.access_token).toBe("at-2");
    expect(JSON.parse(storedUser()!)).toMatchObject({ access_token: "at-2", refresh_token: "rt-2" });
  });

  it("keeps the current user when the refreshed ID token names another subject", async () => {
    await signIn();
    const before = storedUser();
    provider.onToken = async () => tokens("at-2", "rt-2", { sub: "user-2", nonce: undefined });
    await expect(um.signinSilent()).rejects.toThrow("sub in id_token does not match current sub");
    expect(storedUser()).toBe(before);
  });

  it("keeps the current user when the refreshed ID token's signature fails", async () => {
    await signIn();
    const before = storedUser();
    const original = JSON.parse(before!);
    provider.onToken = async () => tokens("at-2", "rt-2", { nonce: undefined, auth_time: decodeAuthTime(original.id_token) }, impostor);
    await expect(um.signinSilent()).rejects.toThrow("signature validation failed");
    expect(storedUser()).toBe(before);
  });

  it("keeps the stored ID token when the refresh response carries none", async () => {
    await signIn();
    const original = JSON.parse(storedUser()!);
    provider.onToken = async () => ({ access_token: "at-2", token_type: "Bearer", expires_in: 600, refresh_token: "rt-2", scope: config.scope });
    await um.signinSilent();
    expect(JSON.parse(storedUser()!)).toMatchObject({ access_token: "at-2", id_token: original.id_token });
  });
});

describe("sign-out", () => {
  it("removes the user and sends id_token_hint and the site root to the provider", async () => {
    await signIn();
    const idTokenHint = JSON.parse(storedUser()!).id_token;
    await um.signoutRedirect({ id_token_hint: idTokenHint, post_logout_redirect_uri: `${ORIGIN}/` });
    const endSession = new URL(navigator.urls.at(-1)!);
    expect(endSession.origin + endSession.pathname).toBe(`${config.authority}/session/end`);
    expect(endSession.searchParams.get("id_token_hint")).toBe(idTokenHint);
    expect(endSession.searchParams.get("post_logout_redirect_uri")).toBe(`${ORIGIN}/`);
    expect(storedUser()).toBeNull();
  });
});

function decodeAuthTime(idToken: string): number {
  return JSON.parse(atob(idToken.split(".")[1]!.replace(/-/g, "+").replace(/_/g, "/"))).auth_time;
}
