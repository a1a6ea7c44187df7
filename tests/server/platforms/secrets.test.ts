/** Secrets at rest: the cipher's format and guarantees, and where its key comes from. */
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { loadConfig } from "../../../server/config.ts";
import { createSecretCipher, SecretUnreadable } from "../../../server/secrets/cipher.ts";
import { loadSecretsKey } from "../../../server/secrets/key.ts";

const key = crypto.randomBytes(32);
const cipher = createSecretCipher(() => key);
const platformId = "6f1c7a52-6a0e-4f57-9d44-1a3c1b8a0c11";

describe("secret cipher (AES-256-GCM)", () => {
  it("round-trips, in the versioned v2:<key id>:<iv>:<tag>:<data> base64url format, with a fresh IV each time", () => {
    const a = cipher.encrypt("Manager1 ünïcode ✓", platformId);
    const b = cipher.encrypt("Manager1 ünïcode ✓", platformId);
    expect(a).toMatch(/^v2:[A-Za-z0-9_-]{11}:[A-Za-z0-9_-]{16}:[A-Za-z0-9_-]{22}:[A-Za-z0-9_-]+$/);
    expect(a).not.toBe(b);
    expect(a.split(":")[2]).not.toBe(b.split(":")[2]);
    expect(cipher.decrypt(a, platformId)).toBe("Manager1 ünïcode ✓");
    expect(cipher.decrypt(b, platformId)).toBe("Manager1 ünïcode ✓");
    expect(a).not.toContain("Manager1");
  });

  it("binds each value to its platform id (associated data)", () => {
    const value = cipher.encrypt("secret", platformId);
    expect(() => cipher.decrypt(value, "another-platform")).toThrow(SecretUnreadable);
  });

  it("refuses a tampered value, another key, and unknown formats, without saying anything secret", () => {
    const value = cipher.encrypt("the-password", platformId);
    const [v, kid, iv, tag, data] = value.split(":");
    const flipped = Buffer.from(data!, "base64url");
    flipped.writeUInt8(flipped.readUInt8(0) ^ 1, 0);
    const attempts = [
      [v, kid, iv, tag, flipped.toString("base64url")].join(":"),
      [v, kid, iv, Buffer.alloc(16).toString("base64url"), data].join(":"),
      [v, kid, Buffer.alloc(12).toString("base64url"), tag, data].join(":"),
      [v, iv, tag, data].join(":"),
      ["v3", kid, iv, tag, data].join(":"),
      "the-password",
      "",
    ];
    for (const attempt of attempts) {
      let error: unknown;
      try {
        cipher.decrypt(attempt, platformId);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(SecretUnreadable);
      expect((error as Error).message).not.toContain("the-password");
    }
    expect(() => createSecretCipher(() => crypto.randomBytes(32)).decrypt(value, platformId)).toThrow(SecretUnreadable);
  });

  it("asks for its key only when first used", () => {
    let asked = 0;
    const lazy = createSecretCipher(() => {
      asked++;
      return key;
    });
    expect(asked).toBe(0);
    lazy.decrypt(lazy.encrypt("x", "id"), "id");
    lazy.encrypt("y", "id");
    expect(asked).toBe(1);
  });
});

describe("secrets key", () => {
  const dirs: string[] = [];
  const tempDir = () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "toolbox-key-"));
    dirs.push(dir);
    return dir;
  };
  afterEach(() => {
    for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
  });

  it("uses SECRETS_KEY when set, and writes no file", () => {
    const dataDir = tempDir();
    const configured = crypto.randomBytes(32);
    const warnings: string[] = [];
    const loaded = loadSecretsKey({ secretsKey: configured.toString("base64"), dataDir, usesDatabaseServer: true, warn: (m) => warnings.push(m) });
    expect(loaded.current.equals(configured)).toBe(true);
    expect(fs.readdirSync(dataDir)).toEqual([]);
    expect(warnings).toEqual([]);
  });

  it("otherwise generates one into DATA_DIR/secrets.key (0600) once, and reads it back", () => {
    const dataDir = path.join(tempDir(), "nested", "data");
    const first = loadSecretsKey({ dataDir, usesDatabaseServer: false, warn: () => {} });
    const file = path.join(dataDir, "secrets.key");
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(Buffer.from(fs.readFileSync(file, "utf8").trim(), "base64").equals(first.current)).toBe(true);
    const second = loadSecretsKey({ dataDir, usesDatabaseServer: false, warn: () => {} });
    expect(second.current.equals(first.current)).toBe(true);
  });

  it("warns that several nodes on one database server must share SECRETS_KEY", () => {
    const warnings: string[] = [];
    loadSecretsKey({ dataDir: tempDir(), usesDatabaseServer: true, warn: (m) => warnings.push(m) });
    expect(warnings.join()).toMatch(/multi-node deployment must set SECRETS_KEY/);
  });

  it("refuses a damaged key file instead of silently making a new key", () => {
    const dataDir = tempDir();
    fs.writeFileSync(path.join(dataDir, "secrets.key"), "too-short\n");
    expect(() => loadSecretsKey({ dataDir, usesDatabaseServer: false, warn: () => {} })).toThrow(/does not hold a 32-byte key/);
  });

  it("is validated at start: 32 bytes of base64, with a message that does not echo it", () => {
    const good = crypto.randomBytes(32);
    expect(loadConfig({ SECRETS_KEY: good.toString("base64") }).secretsKey).toBe(good.toString("base64"));
    expect(loadConfig({ SECRETS_KEY: good.toString("base64url") }).secretsKey).toBe(good.toString("base64url"));
    expect(loadConfig({ SECRETS_KEY: "" }).secretsKey).toBeUndefined();
    for (const bad of ["short-key", crypto.randomBytes(16).toString("base64"), "not base64 at all!!"]) {
      let message = "";
      try {
        loadConfig({ SECRETS_KEY: bad });
      } catch (e) {
        message = (e as Error).message;
      }
      expect(message).toMatch(/SECRETS_KEY must be 32 random bytes in base64/);
      expect(message).not.toContain(bad);
    }
  });
});
