/** Rows of dealing_settings and dealing_switches (server/db/tables/dealing.ts). */
import { and, desc, eq, lt, ne, or, sql } from "drizzle-orm";
import type { DealingOriginals, DealingOverride, DealingSettings } from "../../../core/dealing/index.ts";
import type { DbOrTx } from "../../db/client.ts";
import { dealingServerWrites, dealingSettings, dealingSwitches, tradePlatforms } from "../../db/schema.ts";

export type DealingRow = typeof dealingSettings.$inferSelect;

export async function findDealing(db: DbOrTx, platformId: string, opts: { forUpdate?: boolean } = {}): Promise<DealingRow | undefined> {
  const query = db.select().from(dealingSettings).where(eq(dealingSettings.platformId, platformId));
  const [row] = await (opts.forUpdate ? query.for("update") : query);
  return row;
}

export async function saveDealing(
  db: DbOrTx,
  organizationId: string,
  platformId: string,
  values: { settings: DealingSettings; override: DealingOverride | null },
): Promise<DealingRow> {
  const [row] = await db
    .insert(dealingSettings)
    .values({ platformId, organizationId, settings: values.settings, override: values.override })
    .onConflictDoUpdate({ target: dealingSettings.platformId, set: { settings: values.settings, override: values.override, updatedAt: sql`now()` } })
    .returning();
  return row!;
}

/** Every platform that has dealing settings, with what the scheduler needs. */
export async function allDealing(db: DbOrTx) {
  return db
    .select({
      platformId: dealingSettings.platformId,
      organizationId: dealingSettings.organizationId,
      settings: dealingSettings.settings,
      override: dealingSettings.override,
      updatedAt: dealingSettings.updatedAt,
      timeZone: tradePlatforms.timeZone,
      name: tradePlatforms.name,
      type: tradePlatforms.type,
      connectionKind: sql<string>`${tradePlatforms.connection} ->> 'kind'`,
    })
    .from(dealingSettings)
    .innerJoin(tradePlatforms, eq(tradePlatforms.id, dealingSettings.platformId));
}

/** Records a switch; true for the one caller whose insert landed (every node may try the same switch). */
export async function recordSwitch(db: DbOrTx, platformId: string, at: number, profile: string, reason: string): Promise<boolean> {
  const rows = await db.insert(dealingSwitches).values({ platformId, at, profile, reason }).onConflictDoNothing().returning({ at: dealingSwitches.at });
  return rows.length === 1;
}

export async function switchesOf(db: DbOrTx, platformId: string, limit = 20) {
  return db
    .select()
    .from(dealingSwitches)
    .where(and(eq(dealingSwitches.platformId, platformId)))
    .orderBy(desc(dealingSwitches.at))
    .limit(limit);
}

export type ServerWriteRow = typeof dealingServerWrites.$inferSelect;

/** A claim left `writing` this long (its node died) is taken over; a write that failed is tried again after a minute. */
export const STALE_CLAIM_MS = 120_000;
export const RETRY_FAILED_MS = 60_000;

/**
 * Claims the write of profile `hash` to a real server: answers the row (with the originals and the
 * previous status) for the one caller that moved it, nothing for the others. Taken when the
 * profile in force differs from the one last written, or a claim is stale, or a failure is due again.
 */
export async function claimServerWrite(
  db: DbOrTx,
  values: { platformId: string; organizationId: string; profile: string; hash: string; now: number },
): Promise<{ row: ServerWriteRow; previous: { status: string; hash: string } | null } | undefined> {
  const claim = { profile: values.profile, profileHash: values.hash, status: "writing" as const, claimedAt: values.now };
  const [inserted] = await db
    .insert(dealingServerWrites)
    .values({ platformId: values.platformId, organizationId: values.organizationId, ...claim })
    .onConflictDoNothing()
    .returning();
  if (inserted) return { row: inserted, previous: null };
  const t = dealingServerWrites;
  const [previous] = await db.select({ status: t.status, hash: t.profileHash }).from(t).where(eq(t.platformId, values.platformId));
  if (!previous) return undefined;
  const [row] = await db
    .update(t)
    .set(claim)
    .where(
      and(
        eq(t.platformId, values.platformId),
        // The row as this caller read it: another node's claim in between makes this update miss.
        eq(t.status, previous.status),
        eq(t.profileHash, previous.hash),
        or(
          ne(t.profileHash, values.hash),
          and(eq(t.status, "writing"), lt(t.claimedAt, values.now - STALE_CLAIM_MS)),
          and(or(eq(t.status, "failed"), eq(t.status, "refused")), lt(t.claimedAt, values.now - RETRY_FAILED_MS)),
        ),
      ),
    )
    .returning();
  return row ? { row, previous } : undefined;
}

export async function keepServerOriginals(db: DbOrTx, platformId: string, originals: DealingOriginals): Promise<void> {
  await db.update(dealingServerWrites).set({ originals }).where(eq(dealingServerWrites.platformId, platformId));
}

export async function finishServerWrite(
  db: DbOrTx,
  platformId: string,
  hash: string,
  status: "applied" | "refused" | "failed",
  result: Record<string, unknown>,
): Promise<void> {
  await db
    .update(dealingServerWrites)
    .set({ status, result })
    .where(and(eq(dealingServerWrites.platformId, platformId), eq(dealingServerWrites.profileHash, hash)));
}

export async function findServerWrite(db: DbOrTx, platformId: string): Promise<ServerWriteRow | undefined> {
  const [row] = await db.select().from(dealingServerWrites).where(eq(dealingServerWrites.platformId, platformId));
  return row;
}
