/**
 * The SQL of the copier's risk stops (./riskStops.ts): a follower's suspension (columns of
 * copy_followers), today's bounds in the organization's time zone, the follower positions that are
 * a link's copies, and the divergence notices already published.
 */
import { and, eq, sql } from "drizzle-orm";
import type { Suspension } from "../../../../core/copier/index.ts";
import type { Db } from "../../../db/client.ts";
import { rowsOf } from "../../../db/rows.ts";
import { copyDivergenceNotices, copyFollowers, copyLedger } from "../../../db/schema.ts";

const follower = (linkId: string, platformId: string, login: string) =>
  and(eq(copyFollowers.linkId, linkId), eq(copyFollowers.platformId, platformId), eq(copyFollowers.login, login));

type Row = Pick<typeof copyFollowers.$inferSelect, "suspendedAt" | "suspendedStop" | "suspendedAction" | "suspendedUntil">;
const suspensionOfRow = (r: Row | undefined): Suspension | null =>
  r?.suspendedAt && r.suspendedStop && r.suspendedAction
    ? { stop: r.suspendedStop, action: r.suspendedAction, at: r.suspendedAt.getTime(), until: r.suspendedUntil?.getTime() ?? null }
    : null;

/** The follower's suspension as recorded (lapsed or not: core's suspensionAt says whether it is in force). */
export async function suspensionOf(db: Db, linkId: string, platformId: string, login: string): Promise<Suspension | null> {
  const [row] = await db
    .select({
      suspendedAt: copyFollowers.suspendedAt,
      suspendedStop: copyFollowers.suspendedStop,
      suspendedAction: copyFollowers.suspendedAction,
      suspendedUntil: copyFollowers.suspendedUntil,
    })
    .from(copyFollowers)
    .where(follower(linkId, platformId, login))
    .limit(1);
  return suspensionOfRow(row);
}

/** Today's start and the next day's, at `now`, in the organization's time zone (decision 0078). */
export async function dayOf(db: Db, organizationId: string, now: Date): Promise<{ dayStart: number; nextDayStart: number }> {
  const result = await db.execute(sql`
    select (date_trunc('day', ${now.toISOString()}::timestamptz at time zone o.time_zone) at time zone o.time_zone) as day_start,
      ((date_trunc('day', ${now.toISOString()}::timestamptz at time zone o.time_zone) + interval '1 day') at time zone o.time_zone) as next_day
    from organizations o where o.id = ${organizationId}::uuid`);
  const [row] = rowsOf<{ day_start: string | Date; next_day: string | Date }>(result);
  const midnight = Math.floor(now.getTime() / 86_400_000) * 86_400_000;
  return { dayStart: row ? new Date(row.day_start).getTime() : midnight, nextDayStart: row ? new Date(row.next_day).getTime() : midnight + 86_400_000 };
}

/**
 * Suspends the follower unless a suspension is in force already (one lapsed by its day is
 * replaced); answers it when this call suspended it (a second node, a repeat: undefined).
 */
export async function suspend(
  db: Db,
  linkId: string,
  platformId: string,
  login: string,
  s: { stop: Suspension["stop"]; action: Suspension["action"]; reason: string; until: number | null },
): Promise<Suspension | undefined> {
  const [row] = await db
    .update(copyFollowers)
    .set({
      suspendedAt: sql`now()`,
      suspendedStop: s.stop,
      suspendedAction: s.action,
      suspendedReason: s.reason,
      suspendedUntil: s.until === null ? null : new Date(s.until),
    })
    .where(
      and(
        follower(linkId, platformId, login),
        sql`(${copyFollowers.suspendedAt} is null or (${copyFollowers.suspendedUntil} is not null and ${copyFollowers.suspendedUntil} <= now()))`,
      ),
    )
    .returning();
  return suspensionOfRow(row) ?? undefined;
}

/** Clears a suspension whose day is over (the daily loss limit), exactly that one. */
export async function liftLapsed(db: Db, linkId: string, platformId: string, login: string, at: number): Promise<boolean> {
  const rows = await db
    .update(copyFollowers)
    .set({ suspendedAt: null, suspendedStop: null, suspendedAction: null, suspendedReason: null, suspendedUntil: null })
    .where(
      and(
        follower(linkId, platformId, login),
        // Its time in ms, as read (the column keeps microseconds).
        sql`date_trunc('milliseconds', ${copyFollowers.suspendedAt}) = ${new Date(at).toISOString()}::timestamptz`,
        sql`${copyFollowers.suspendedUntil} is not null and ${copyFollowers.suspendedUntil} <= now()`,
      ),
    )
    .returning({ login: copyFollowers.login });
  return rows.length === 1;
}

/** The follower positions that are this link's copies: opened by it, or an MT4 ticket a copy continues as. */
export async function copiedPositionIds(db: Db, linkId: string, platformId: string, login: string): Promise<Set<string>> {
  const t = copyLedger;
  const rows = await db
    .selectDistinct({ id: t.followerPositionId })
    .from(t)
    .where(
      and(
        eq(t.linkId, linkId),
        eq(t.followerPlatformId, platformId),
        eq(t.followerLogin, login),
        eq(t.state, "done"),
        sql`${t.followerAction} in ('open', 'close') and ${t.followerPositionId} is not null`,
      ),
    );
  return new Set(rows.map((r) => r.id!));
}

/** Records that this divergence was published; false when it had been already (by this node or another). */
export async function firstNotice(db: Db, linkId: string, platformId: string, login: string, sourceId: string, copyRequestId: string): Promise<boolean> {
  const rows = await db
    .insert(copyDivergenceNotices)
    .values({ linkId, followerPlatformId: platformId, followerLogin: login, sourceId, copyRequestId })
    .onConflictDoNothing()
    .returning({ sourceId: copyDivergenceNotices.sourceId });
  return rows.length === 1;
}
