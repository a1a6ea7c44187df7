/**
 * Secrets at rest (manager passwords, API keys): AES-256-GCM with a fresh random 12-byte IV per
 * value and the owner's id (the platform id) as associated data, so a ciphertext copied onto
 * another row does not decrypt. Stored as `v1:<iv>:<tag>:<data>`, each part base64url; the
 * version prefix leaves room to change the key or the scheme later (a `v2` can name its key).
 * Nothing here ever puts a plaintext or a key into an error message.
 */
import crypto from "node:crypto";

export const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const VERSION = "v1";

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
}

/**
 * A cipher over a key that is resolved on first use (`key()` may read or create a key file), so
 * a deployment that never stores a secret never needs one.
 */
export function createSecretCipher(key: () => Buffer): SecretCipher {
  let resolved: Buffer | undefined;
  const currentKey = () => {
    if (!resolved) {
      const k = key();
      if (k.length !== KEY_BYTES) throw new Error(`The secrets key must be ${KEY_BYTES} bytes`);
      resolved = k;
    }
    return resolved;
  };

  return {
    encrypt(plaintext, associatedData) {
      const iv = crypto.randomBytes(IV_BYTES);
      const cipher = crypto.createCipheriv("aes-256-gcm", currentKey(), iv, { authTagLength: TAG_BYTES });
      cipher.setAAD(Buffer.from(associatedData, "utf8"));
      const data = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
      const tag = cipher.getAuthTag();
      return [VERSION, iv.toString("base64url"), tag.toString("base64url"), data.toString("base64url")].join(":");
    },

    decrypt(ciphertext, associatedData) {
      const parts = ciphertext.split(":");
      if (parts.length !== 4 || parts[0] !== VERSION) throw new SecretUnreadable("A stored secret has an unknown format.");
      const [, ivText, tagText, dataText] = parts;
      const iv = Buffer.from(ivText, "base64url");
      const tag = Buffer.from(tagText, "base64url");
      if (iv.length !== IV_BYTES || tag.length !== TAG_BYTES) throw new SecretUnreadable("A stored secret has an unknown format.");
      try {
        const decipher = crypto.createDecipheriv("aes-256-gcm", currentKey(), iv, { authTagLength: TAG_BYTES });
        decipher.setAAD(Buffer.from(associatedData, "utf8"));
        decipher.setAuthTag(tag);
        return Buffer.concat([decipher.update(Buffer.from(dataText, "base64url")), decipher.final()]).toString("utf8");
      } catch {
        throw new SecretUnreadable();
      }
    },
  };
}
