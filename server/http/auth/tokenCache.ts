import crypto from "node:crypto";
import type { VerifiedToken } from "./tokens.ts";

/** Verified tokens kept; when full, the oldest go first. */
const MAX_ENTRIES = 10_000;

/**
 * Access tokens already verified, by the SHA-256 of the token, until they expire (plus the
 * clock tolerance): a signature is checked once per token, not once per request. Only tokens
 * that passed every check are kept. Revocation is not cached: the guard asks the revocation list
 * on every request, cached token or not.
 */
export class VerifiedTokenCache {
  private readonly entries = new Map<string, VerifiedToken>();

  constructor(private readonly toleranceSeconds: number) {}

  get(token: string): VerifiedToken | undefined {
    const key = keyOf(token);
    const hit = this.entries.get(key);
    if (!hit) return undefined;
    if (hit.exp + this.toleranceSeconds <= Date.now() / 1000) {
      this.entries.delete(key);
      return undefined;
    }
    return hit;
  }

  set(token: string, verified: VerifiedToken): void {
    if (this.entries.size >= MAX_ENTRIES) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
    this.entries.set(keyOf(token), verified);
  }

  clear(): void {
    this.entries.clear();
  }
}

function keyOf(token: string): string {
  return crypto.createHash("sha256").update(token).digest("base64url");
}
