/**
 * Secrets at rest (manager passwords, API keys, the identity provider's signing and cookie keys):
 * AES-256-GCM with a fresh random 12-byte IV per value and the owner's name as associated data
 * (the platform id, the secret's name), so a ciphertext copied onto another row does not decrypt.
 *
 * Stored as `v2:<key id>:<iv>:<tag>:<data>`, each part base64url. The key id names the key that
 * encrypted the value (a fingerprint of it, not the key), so keys can rotate: values are written
 * under the current key and read under whichever configured key they name (docs/security.md
 * "Rotating the secrets key"). `v1:<iv>:<tag>:<data>` (before key ids) is still read, by trying
 * each configured key.
 * Nothing here ever puts a plaintext or a key into an error message.
 */
import crypto from "node:crypto";

export const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const VERSION = "v2";
const LEGACY_VERSION = "v1";

/** The keys a deployment holds: the one that encrypts, and older ones still accepted for reading. */
export interface SecretKeyRing {
  current: Buffer;
  previous: Buffer[];
}

/** A stored secret that cannot be read back: a different key, or a damaged value. Carries no secret. */
export class SecretUnreadable extends Error {
  override readonly name = "SecretUnreadable";
  constructor(message = "A stored secret could not be decrypted: it was encrypted with another SECRETS_KEY, or it is damaged.") {
    super(message);
  }
}

export interface SecretCipher {
  encrypt(plaintext: string, associatedData: string): string;
  /** Throws SecretUnreadable when the key, the associated data or the value does not match. */
  decrypt(ciphertext: string, associatedData: string): string;
  /** Id of the key new values are encrypted with. */
  currentKeyId(): string;
  /** True when a stored value is not under the current key (an older key, or the v1 format): re-encrypt it. */
  isStale(ciphertext: string): boolean;
}

/**
 * The id of a key: 8 bytes of SHA-256 over a fixed label and the key, base64url (11 characters).
 * It tells keys apart; it reveals nothing usable about the key.
 */
export function keyIdOf(key: Buffer): string {
  return crypto.createHash("sha256").update("toolbox secrets key id\u0000").update(key).digest().subarray(0, 8).toString("base64url");
}

/**
 * A cipher over keys that are resolved on first use (`keys()` may read or create a key file), so a
 * deployment that never stores a secret never needs one. `keys()` may give a single key (no older
 * ones).
 */
export function createSecretCipher(keys: () => Buffer | SecretKeyRing): SecretCipher {
  let resolved: { current: Buffer; currentId: string; byId: Map<string, Buffer>; all: Buffer[] } | undefined;
  const ring = () => {
    if (!resolved) {
      const k = keys();
      const { current, previous } = Buffer.isBuffer(k) ? { current: k, previous: [] } : k;
      const all = [current, ...previous];
      for (const key of all) if (key.length !== KEY_BYTES) throw new Error(`The secrets key must be ${KEY_BYTES} bytes`);
      resolved = { current, currentId: keyIdOf(current), byId: new Map(all.map((key) => [keyIdOf(key), key])), all };
    }
    return resolved;
  };

  const open = (key: Buffer, iv: Buffer, tag: Buffer, data: Buffer, associatedData: string): string | undefined => {
    try {
      const decipher = crypto.createDecipheriv("aes-256-gcm", key, iv, { authTagLength: TAG_BYTES });
      decipher.setAAD(Buffer.from(associatedData, "utf8"));
      decipher.setAuthTag(tag);
      return Buffer.concat([decipher.update(data), decipher.final()]).toString("utf8");
    } catch {
      return undefined;
    }
  };

  return {
    encrypt(plaintext, associatedData) {
      const { current, currentId } = ring();
      const iv = crypto.randomBytes(IV_BYTES);
      const cipher = crypto.createCipheriv("aes-256-gcm", current, iv, { authTagLength: TAG_BYTES });
      cipher.setAAD(Buffer.from(associatedData, "utf8"));
      const data = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
      const tag = cipher.getAuthTag();
      return [VERSION, currentId, iv.toString("base64url"), tag.toString("base64url"), data.toString("base64url")].join(":");
    },

    decrypt(ciphertext, associatedData) {
      const parsed = parse(ciphertext);
      const { byId, all } = ring();
      let candidates: Buffer[];
      if (parsed.keyId === undefined) {
        candidates = all;
      } else {
        const key = byId.get(parsed.keyId);
        if (!key) {
          throw new SecretUnreadable(`A stored secret was encrypted with a key that is not configured (key id ${parsed.keyId}): add that key to SECRETS_KEY.`);
        }
        candidates = [key];
      }
      for (const key of candidates) {
        const plaintext = open(key, parsed.iv, parsed.tag, parsed.data, associatedData);
        if (plaintext !== undefined) return plaintext;
      }
      throw new SecretUnreadable();
    },

    currentKeyId: () => ring().currentId,

    isStale(ciphertext) {
      return parse(ciphertext).keyId !== ring().currentId;
    },
  };
}

function parse(ciphertext: string): { keyId?: string; iv: Buffer; tag: Buffer; data: Buffer } {
  const parts = ciphertext.split(":");
  let keyId: string | undefined;
  let rest: string[];
  if (parts.length === 5 && parts[0] === VERSION) [, keyId, ...rest] = parts;
  else if (parts.length === 4 && parts[0] === LEGACY_VERSION) rest = parts.slice(1);
  else throw new SecretUnreadable("A stored secret has an unknown format.");
  const [ivText, tagText, dataText] = rest as [string, string, string];
  const iv = Buffer.from(ivText, "base64url");
  const tag = Buffer.from(tagText, "base64url");
  if (iv.length !== IV_BYTES || tag.length !== TAG_BYTES) throw new SecretUnreadable("A stored secret has an unknown format.");
  return { keyId, iv, tag, data: Buffer.from(dataText, "base64url") };
}
