/**
 * Where the keys that encrypt secrets at rest come from:
 * 1. `SECRETS_KEY` — the way for production and for several Toolbox nodes sharing one database:
 *    every node must use the same keys. One key (32 bytes, base64), or several, comma-separated:
 *    the first encrypts, the others are older keys still accepted for reading (rotation,
 *    docs/security.md);
 * 2. otherwise `$DATA_DIR/secrets.key`, generated once (mode 0600) and read on later starts. With
 *    `DATABASE_URL` this still works for one node, and a warning says to set SECRETS_KEY.
 * Losing the key makes stored secrets unreadable (the platforms then ask for them again; the
 * identity provider refuses to start); it is never written to the database next to what it protects.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { KEY_BYTES, type SecretKeyRing } from "./cipher.ts";

export const SECRETS_KEY_FILE = "secrets.key";

export interface SecretsKeyOptions {
  /** SECRETS_KEY as configured (base64, comma-separated when older keys follow), already validated by server/config.ts. */
  secretsKey?: string;
  dataDir: string;
  /** A PostgreSQL server (possibly shared by several nodes) rather than the embedded database. */
  usesDatabaseServer: boolean;
  warn: (message: string) => void;
}

export function loadSecretsKey(options: SecretsKeyOptions): SecretKeyRing {
  if (options.secretsKey) {
    const [current, ...previous] = options.secretsKey.split(",").map((text, i) => decodeKey(text, `SECRETS_KEY (key ${i + 1})`));
    return { current: current!, previous };
  }
  return { current: loadOrCreateKeyFile(options), previous: [] };
}

function loadOrCreateKeyFile(options: SecretsKeyOptions): Buffer {
  const file = path.join(options.dataDir, SECRETS_KEY_FILE);
  if (options.usesDatabaseServer) {
    options.warn(
      `SECRETS_KEY is not set: platform secrets and the identity provider's keys are encrypted with a key kept in ${file}. ` +
        "A multi-node deployment must set SECRETS_KEY to the same value on every node (openssl rand -base64 32).",
    );
  }
  try {
    return readKeyFile(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
  }
  fs.mkdirSync(options.dataDir, { recursive: true, mode: 0o700 });
  const key = crypto.randomBytes(KEY_BYTES);
  try {
    // `wx`: if another process created it meanwhile, keep theirs.
    fs.writeFileSync(file, `${key.toString("base64")}\n`, { mode: 0o600, flag: "wx" });
    return key;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "EEXIST") return readKeyFile(file);
    throw err;
  }
}

function readKeyFile(file: string): Buffer {
  return decodeKey(fs.readFileSync(file, "utf8"), file);
}

function decodeKey(text: string, source: string): Buffer {
  const key = Buffer.from(text.trim(), "base64");
  if (key.length !== KEY_BYTES) throw new Error(`${source} does not hold a ${KEY_BYTES}-byte key in base64`);
  return key;
}
