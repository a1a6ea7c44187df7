import crypto from "node:crypto";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../../server/config.ts";
import { createSecretCipher, keyIdOf, SecretUnreadable } from "../../../server/secrets/cipher.ts";
import { loadSecretsKey } from "../../../server/secrets/key.ts";

const key = () => crypto.randomBytes(32);

/** v1 (no key id) as Toolbox wrote it before key ids: `v1:<iv>:<tag>:<data>`. */
function legacyEncrypt(k: Buffer, plaintext: string, associatedData: string) {
  const iv = crypto.randomBytes(12);
  const c = crypto.createCipheriv("aes-256-gcm", k, iv, { authTagLength: 16 });
  c.setAAD(Buffer.from(associatedData));
  const data = Buffer.concat([c.update(plaintext, "utf8"), c.final()]);
  return ["v1", iv.toString("base64url"), c.getAuthTag().toString("base64url"), data.toString("base64url")].join(":");
}

describe("secrets key rotation", () => {
  it("names the key in each value, and reads values of an older key while it is configured", () => {
    const [oldKey, newKey] = [key(), key()];
    const before = createSecretCipher(() => oldKey);
    const value = before.encrypt("manager-pass", "p1");
    expect(value.split(":")[1]).toBe(keyIdOf(oldKey));

    const ring = createSecretCipher(() => ({ current: newKey, previous: [oldKey] }));
    expect(ring.decrypt(value, "p1")).toBe("manager-pass");
    expect(ring.isStale(value)).toBe(true);
    const rewritten = ring.encrypt("manager-pass", "p1");
    expect(rewritten.split(":")[1]).toBe(keyIdOf(newKey));
    expect(ring.isStale(rewritten)).toBe(false);
    expect(ring.currentKeyId()).toBe(keyIdOf(newKey));

    const without = createSecretCipher(() => newKey);
    expect(() => without.decrypt(value, "p1")).toThrow(SecretUnreadable);
    expect(() => without.decrypt(value, "p1")).toThrow(`key id ${keyIdOf(oldKey)}`);
  });

  it("reads the v1 format (no key id) with any configured key, and calls it stale", () => {
    const [oldKey, newKey] = [key(), key()];
    const legacy = legacyEncrypt(oldKey, "api-key-123", "p2");
    const ring = createSecretCipher(() => ({ current: newKey, previous: [oldKey] }));
    expect(ring.decrypt(legacy, "p2")).toBe("api-key-123");
    expect(ring.isStale(legacy)).toBe(true);
    expect(() => createSecretCipher(() => newKey).decrypt(legacy, "p2")).toThrow(SecretUnreadable);
  });

  it("takes SECRETS_KEY as the current key followed by older ones, comma-separated", () => {
    const [a, b] = [key(), key()];
    const text = `${a.toString("base64")}, ${b.toString("base64")}`;
    const configured = loadConfig({ SECRETS_KEY: text }).secretsKey;
    const ring = loadSecretsKey({ secretsKey: configured, dataDir: "/nonexistent", usesDatabaseServer: true, warn: () => {} });
    expect(ring.current.equals(a)).toBe(true);
    expect(ring.previous.map((k) => k.toString("base64"))).toEqual([b.toString("base64")]);
    expect(() => loadConfig({ SECRETS_KEY: `${a.toString("base64")},short` })).toThrow(/SECRETS_KEY must be 32 random bytes/);
  });
});
