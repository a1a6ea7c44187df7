import { gt, lt, sql } from "drizzle-orm";
import type { FastifyBaseLogger } from "fastify";
import type { Db } from "../../db/client.ts";
import { revokedGrants } from "../../db/schema.ts";

/**
 * How often every node reads the revocations of the last minute, whatever the notifications said:
 * the bound on how long another node may still accept a token of a revoked grant.
 */
export const REVOCATION_POLL_MS = 1000;
/** Revocations re-read by each poll: far more than any insert takes to commit. */
const POLL_WINDOW = sql`interval '1 minute'`;
/** Expired rows are deleted this often (by whichever node gets there). */
const PURGE_EVERY_MS = 10 * 60 * 1000;

/**
 * Grants of the embedded provider that ended — at sign-out (the provider revokes every grant of
 * the session), when the web app revokes its refresh token, or when a spent refresh token is
 * reused — and so the access tokens they issued, which carry the grant id (`grant_id` claim).
 *
 * Kept in the database (`revoked_grants`) until those tokens would have expired, so every node
 * refuses them: the node that revokes knows at once; the others hear it from the database's
 * notification within milliseconds, and in any case from their poll within REVOCATION_POLL_MS.
 * The guard asks `isRevoked` on every request: a map lookup.
 */
export class RevocationList {
  private readonly revoked = new Map<string, number>();
  private poll?: NodeJS.Timeout;
  private lastPurge = 0;
  private polling?: Promise<void>;
  private loaded = false;

  constructor(
    private readonly db: Db,
    /** How long after its revocation a grant's last access token may still be presented (its lifetime plus the clock tolerance). */
    private readonly coverSeconds: number,
    private readonly log: FastifyBaseLogger,
  ) {}

  isRevoked(grantId: string | undefined): boolean {
    return grantId !== undefined && this.revoked.has(grantId);
  }

  /** Record a revocation: refused here at once, and by every node once the row is written. */
  async revoke(grantId: string): Promise<void> {
    this.remember(grantId, Date.now() + this.coverSeconds * 1000);
    const expiresAt = sql`now() + ${this.coverSeconds}::integer * interval '1 second'`;
    await this.db.insert(revokedGrants).values({ grantId, expiresAt }).onConflictDoUpdate({ target: revokedGrants.grantId, set: { expiresAt } });
  }

  /** A revocation announced by the database (the row exists). */
  heard(grantId: string): void {
    this.remember(grantId, Date.now() + this.coverSeconds * 1000);
  }

  /** Reads every revocation still in force; then polls recent ones. */
  async start(): Promise<void> {
    await this.readAll();
    this.poll = setInterval(() => void this.refresh(), REVOCATION_POLL_MS);
    this.poll.unref();
  }

  stop(): Promise<void> {
    clearInterval(this.poll);
    return this.polling ?? Promise.resolve();
  }

  /** Notifications may have been missed: read the whole list again. */
  gap(): void {
    if (this.loaded) void this.readAll().catch((err: unknown) => this.log.warn({ err }, "could not read revoked grants"));
  }

  /** One poll: revocations of the last minute, and expired entries forgotten. */
  refresh(): Promise<void> {
    this.polling ??= this.readRecent()
      .catch((err: unknown) => this.log.warn({ err }, "could not read revoked grants"))
      .finally(() => (this.polling = undefined));
    return this.polling;
  }

  private async readAll() {
    const rows = await this.db
      .select({ grantId: revokedGrants.grantId, expiresAt: revokedGrants.expiresAt })
      .from(revokedGrants)
      .where(gt(revokedGrants.expiresAt, sql`now()`));
    for (const row of rows) this.remember(row.grantId, row.expiresAt.getTime());
    this.loaded = true;
  }

  private async readRecent() {
    const rows = await this.db
      .select({ grantId: revokedGrants.grantId, expiresAt: revokedGrants.expiresAt })
      .from(revokedGrants)
      .where(gt(revokedGrants.revokedAt, sql`now() - ${POLL_WINDOW}`));
    for (const row of rows) this.remember(row.grantId, row.expiresAt.getTime());
    const now = Date.now();
    for (const [grantId, until] of this.revoked) if (until < now) this.revoked.delete(grantId);
    if (now - this.lastPurge > PURGE_EVERY_MS) {
      this.lastPurge = now;
      await this.db.delete(revokedGrants).where(lt(revokedGrants.expiresAt, sql`now()`));
    }
  }

  private remember(grantId: string, until: number) {
    this.revoked.set(grantId, Math.max(until, this.revoked.get(grantId) ?? 0));
  }
}
