import { and, eq, isNotNull } from "drizzle-orm";
import type { Db } from "../db/client.ts";
import { tradePlatforms } from "../db/schema.ts";
import { SecretUnreadable, type SecretCipher } from "./cipher.ts";

/**
 * Key rotation, at start: every platform secret not under the current key (an older key of
 * SECRETS_KEY, or the v1 format) is re-encrypted under it, so the older key can be dropped after
 * one start (docs/security.md "Rotating the secrets key"). A row changed meanwhile is left to its
 * writer; one that no configured key opens is left as is (that platform asks for its secret again).
 * The identity provider's keys are re-encrypted when they are loaded (server/idp/keys.ts).
 * Returns how many were re-encrypted.
 */
export async function reencryptPlatformSecrets(db: Db, cipher: SecretCipher): Promise<{ reencrypted: number; unreadable: number }> {
  const rows = await db
    .select({ id: tradePlatforms.id, secret: tradePlatforms.secretCiphertext })
    .from(tradePlatforms)
    .where(isNotNull(tradePlatforms.secretCiphertext));
  let reencrypted = 0;
  let unreadable = 0;
  for (const row of rows) {
    const before = row.secret!;
    if (!cipher.isStale(before)) continue;
    let plaintext: string;
    try {
      plaintext = cipher.decrypt(before, row.id);
    } catch (err) {
      if (!(err instanceof SecretUnreadable)) throw err;
      unreadable++;
      continue;
    }
    const updated = await db
      .update(tradePlatforms)
      .set({ secretCiphertext: cipher.encrypt(plaintext, row.id) })
      .where(and(eq(tradePlatforms.id, row.id), eq(tradePlatforms.secretCiphertext, before)))
      .returning({ id: tradePlatforms.id });
    reencrypted += updated.length;
  }
  return { reencrypted, unreadable };
}
