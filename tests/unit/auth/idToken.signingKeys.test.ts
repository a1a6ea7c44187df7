import { describe, expect, it, vi } from "vitest";
import { createSigningKeySource } from "~/auth/idToken/signingKeys";

const JWKS_URI = "https://idp.test/oidc/jwks";

describe("signing keys from the discovery document's jwks_uri", () => {
  it("fetches once and serves the cache", async () => {
    const getJson = vi.fn(async () => ({ keys: [{ kty: "RSA", kid: "a" }] }));
    const source = createSigningKeySource(async () => JWKS_URI, getJson);
    await source.keys();
    await source.keys();
    expect(getJson).toHaveBeenCalledTimes(1);
    expect(getJson).toHaveBeenCalledWith(JWKS_URI);
  });

  it("refetches on demand (unknown kid) and caches the new set", async () => {
    const getJson = vi
      .fn()
      .mockResolvedValueOnce({ keys: [{ kty: "RSA", kid: "a" }] })
      .mockResolvedValueOnce({ keys: [{ kty: "RSA", kid: "b" }] });
    const source = createSigningKeySource(async () => JWKS_URI, getJson);
    expect((await source.keys()).map((k) => k.kid)).toEqual(["a"]);
    expect((await source.refresh()).map((k) => k.kid)).toEqual(["b"]);
    expect((await source.keys()).map((k) => k.kid)).toEqual(["b"]);
    expect(getJson).toHaveBeenCalledTimes(2);
  });

  it("does not keep a failed fetch: the next use tries again", async () => {
    const getJson = vi.fn().mockRejectedValueOnce(new TypeError("Failed to fetch")).mockResolvedValueOnce({ keys: [] });
    const source = createSigningKeySource(async () => JWKS_URI, getJson);
    await expect(source.keys()).rejects.toThrow("Failed to fetch");
    await expect(source.keys()).resolves.toEqual([]);
  });

  it("refuses a document without a key list", async () => {
    const source = createSigningKeySource(
      async () => JWKS_URI,
      async () => ({ nope: true }),
    );
    await expect(source.keys()).rejects.toThrow("Missing keys on keyset");
  });
});
