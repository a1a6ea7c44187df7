/**
 * The SQL of the copier's ledger (`copy_ledger`, server/db/tables/tradesCopier.ts): a row per
 * follower action, keyed by its request id, inserted before anything is sent. Every change to a
 * pending row names the lease holder it was taken by and that it is still pending; lease times are
 * the database's clock.
 */
import { and, asc, eq, inArray, isNull, lt, or, sql } from "drizzle-orm";
import type { FollowerAction } from "../../../../core/copier/index.ts";
import { formatLots, lotsToVolume, type Volume } from "../../../../core/trading/index.ts";
import type { TradePlatformConnector } from "../../../connectors/connector.ts";
import type { Db } from "../../../db/client.ts";
import { copyLedger } from "../../../db/schema.ts";
import { LEASE_MARGIN_MS } from "../../accounts/balanceOperations.ts";

const t = copyLedger;
export type LedgerRow = typeof t.$inferSelect;
export type NewLedgerRow = Omit<typeof t.$inferInsert, "createdAt" | "updatedAt" | "attempts" | "leaseUntil" | "sentAt" | "ackedAt">;

const leaseFromNow = (leaseMs: number) => sql`now() + ${`${Math.ceil(leaseMs)} milliseconds`}::interval`;
const heldBy = (requestId: string, holder: string) => and(eq(t.requestId, requestId), eq(t.leaseHolder, holder), eq(t.state, "pending"));

/** A pending row's lease: the connector's request timeout and a margin (an answer still on its way is not sent again). */
export function leaseMsOf(connector: TradePlatformConnector): number {
  return connector.requestTimeoutMs + LEASE_MARGIN_MS;
}

/** The ledger's description of a follower action: its symbol, volume and the follower position or order it acts on. */
export function describe(action: FollowerAction): { symbol: string | null; volume: string | null; followerPositionId: string | null } {
  switch (action.type) {
    case "open":
      return { symbol: action.symbol, volume: formatLots(action.volume), followerPositionId: null };
    case "placeOrder":
      return { symbol: action.symbol, volume: formatLots(action.volume), followerPositionId: null };
    case "close":
      return { symbol: null, volume: formatLots(action.volume), followerPositionId: action.positionId };
    case "modify":
      return { symbol: null, volume: null, followerPositionId: action.positionId };
    case "modifyOrder":
    case "cancelOrder":
      return { symbol: null, volume: null, followerPositionId: action.orderId };
  }
}

/** Inserts the row (pending with a lease, or skipped); undefined when the request id was recorded before. */
/**
 * A row whose action was never decided: the follower's context could not be read (recordFailure:
 * `failed`, no follower action, nothing sent). It is decided again later (insertRow takes it over).
 */
export const isUnread = (row: Pick<LedgerRow, "state" | "followerAction">): boolean => row.state === "failed" && row.followerAction === null;

/**
 * Records a decision under its request id, once: undefined when the id has a row already (a
 * repeat, another node's work) — except a row never decided (isUnread), which the new decision
 * replaces in the same statement, so of two nodes deciding again only one gets the row.
 */
export async function insertRow(db: Db, row: NewLedgerRow, leaseMs: number): Promise<LedgerRow | undefined> {
  const values = { ...row, ...(row.state === "pending" ? { leaseUntil: leaseFromNow(leaseMs) } : {}) };
  const insert = db.insert(t).values(values);
  // Another failure to read is not a decision: the first one's row stays (and is not published twice).
  if (isUnread({ state: row.state, followerAction: row.followerAction ?? null })) {
    const [inserted] = await insert.onConflictDoNothing({ target: t.requestId }).returning();
    return inserted;
  }
  const { requestId: _id, ...decision } = values;
  // Every column the failure wrote is the decision's now (its reason and times included).
  const fresh = { reason: null, sentAt: null, ackedAt: null, attempts: 0, leaseHolder: null, leaseUntil: null, followerPositionId: null, action: null };
  const [inserted] = await insert
    .onConflictDoUpdate({
      target: t.requestId,
      set: { ...fresh, ...decision, updatedAt: sql`now()` },
      setWhere: and(eq(t.state, "failed"), isNull(t.followerAction)),
    })
    .returning();
  return inserted;
}

/** The held links with a row never decided (isUnread) that a catch-up decides again (opens, closes, partial closes, fills, of the last hour). */
export async function linksWithUnread(db: Db, linkIds: readonly string[]): Promise<Set<string>> {
  if (linkIds.length === 0) return new Set();
  const rows = await db
    .selectDistinct({ linkId: t.linkId })
    .from(t)
    .where(
      and(
        inArray(t.linkId, [...linkIds]),
        eq(t.state, "failed"),
        isNull(t.followerAction),
        // What a catch-up decides again, for an hour; older ones are left to the status page and the resync.
        inArray(t.sourceAction, ["open", "close", "partialClose", "orderFilled"]),
        sql`${t.decidedAt} > now() - interval '1 hour'`,
      ),
    );
  return new Set(rows.map((r) => r.linkId));
}

export async function findRow(db: Db, requestId: string): Promise<LedgerRow | undefined> {
  const [row] = await db.select().from(t).where(eq(t.requestId, requestId)).limit(1);
  return row;
}

/** Takes a pending row whose lease ran out (a crash, a lost answer); undefined when it is not that, or another took it first. */
export async function takeOver(db: Db, requestId: string, holder: string, leaseMs: number): Promise<LedgerRow | undefined> {
  const [row] = await db
    .update(t)
    .set({ leaseHolder: holder, leaseUntil: leaseFromNow(leaseMs), updatedAt: sql`now()` })
    .where(and(eq(t.requestId, requestId), eq(t.state, "pending"), or(isNull(t.leaseUntil), lt(t.leaseUntil, sql`now()`))))
    .returning();
  return row;
}

/** About to send: the send time and one more attempt. */
export async function markSent(db: Db, requestId: string, holder: string): Promise<void> {
  await db
    .update(t)
    .set({ sentAt: sql`coalesce(${t.sentAt}, now())`, attempts: sql`${t.attempts} + 1`, updatedAt: sql`now()` })
    .where(heldBy(requestId, holder));
}

/** The platform's answer: done or failed (with its words); false when the lease is no longer this holder's. */
export async function settle(
  db: Db,
  requestId: string,
  holder: string,
  outcome: { state: "done" | "failed"; reason?: string | null; followerPositionId?: string | null },
): Promise<boolean> {
  const rows = await db
    .update(t)
    .set({
      state: outcome.state,
      reason: outcome.reason ?? null,
      ...(outcome.followerPositionId === undefined ? {} : { followerPositionId: outcome.followerPositionId }),
      ackedAt: sql`now()`,
      leaseUntil: null,
      updatedAt: sql`now()`,
    })
    .where(heldBy(requestId, holder))
    .returning({ requestId: t.requestId });
  return rows.length === 1;
}

/** The answer was not known (timeout, lost link): the lease is given up, so the next pass sends the same id again. */
export async function releaseRow(db: Db, requestId: string, holder: string): Promise<void> {
  await db
    .update(t)
    .set({ leaseUntil: sql`now()`, updatedAt: sql`now()` })
    .where(heldBy(requestId, holder));
}

/** Pending rows of these links whose lease ran out: to be sent again with their own request id. */
export async function expiredPending(db: Db, linkIds: readonly string[]): Promise<LedgerRow[]> {
  if (linkIds.length === 0) return [];
  return db
    .select()
    .from(t)
    .where(and(eq(t.state, "pending"), inArray(t.linkId, [...linkIds]), or(isNull(t.leaseUntil), lt(t.leaseUntil, sql`now()`))))
    .orderBy(asc(t.createdAt))
    .limit(500);
}

/** What the follower holds of one source position or order, as the ledger tells it. */
export interface CopyState {
  sourceId: string;
  /** Any follower action was ever decided to open it (so it is never opened again by the live flow). */
  opened: boolean;
  /** The follower's position (or order) that is the copy now; null once closed (or never made, or a fill not yet found). */
  followerId: string | null;
  /** The open request id of the copy (its tag on platforms that keep one; for a fill, the order's). */
  openRequestId: string | null;
  /** The follower's symbol and volume as the copy was opened or placed, and the source's volume then. */
  symbol: string | null;
  volume: Volume | null;
  sourceVolume: Volume | null;
  /** The latest source volume the ledger recorded for it (at the open, then what each partial close kept). */
  lastSourceVolume: Volume | null;
  /** A copied order that filled: the follower's order (the position it opened is found by it) and the fill's row. */
  fill: (FillLink & { rowId: string }) | null;
  /** The copy's open (or place) is recorded and not answered yet: what follows it waits for it. */
  inFlight: boolean;
}

/** The action recorded on a fill's row (follower action `open`, source action `orderFilled`): nothing is sent for it. */
export interface FillLink {
  type: "fill";
  orderId: string;
  placeRequestId: string | null;
}

const OPENING = new Set(["open", "placeOrder"]);

/** The copies of every source position or order of a link on one follower, from the done rows in order. */
export async function copyStates(db: Db, linkId: string, platformId: string, login: string): Promise<Map<string, CopyState>> {
  const rows = await db
    .select({
      sourceId: t.sourceId,
      followerAction: t.followerAction,
      state: t.state,
      followerPositionId: t.followerPositionId,
      action: t.action,
      requestId: t.requestId,
      symbol: t.symbol,
      volume: t.volume,
      sourceVolume: t.sourceVolume,
    })
    .from(t)
    .where(and(eq(t.linkId, linkId), eq(t.followerPlatformId, platformId), eq(t.followerLogin, login), sql`${t.followerAction} is not null`))
    .orderBy(asc(t.decidedAt), asc(t.createdAt));
  const states = new Map<string, CopyState>();
  for (const row of rows) {
    let state = states.get(row.sourceId);
    if (!state) {
      state = {
        sourceId: row.sourceId,
        opened: false,
        followerId: null,
        openRequestId: null,
        symbol: null,
        volume: null,
        sourceVolume: null,
        lastSourceVolume: null,
        fill: null,
        inFlight: false,
      };
      states.set(row.sourceId, state);
    }
    if (row.sourceVolume !== null && row.state !== "failed") state.lastSourceVolume = row.sourceVolume;
    const kind = row.followerAction!;
    if (OPENING.has(kind)) {
      state.opened = true;
      state.inFlight = row.state === "pending";
      if (row.state === "done") {
        const fill = (row.action as { type?: string } | null)?.type === "fill" ? (row.action as FillLink) : null;
        state.fill = fill ? { ...fill, rowId: row.requestId } : null;
        state.followerId = row.followerPositionId;
        state.openRequestId = fill ? fill.placeRequestId : row.requestId;
        state.symbol = row.symbol;
        state.volume = row.volume === null ? null : lotsToVolume(Number(row.volume));
        state.sourceVolume = row.sourceVolume;
      }
      continue;
    }
    if (row.state !== "done") continue;
    const action = row.action as FollowerAction | null;
    if (kind === "cancelOrder" || (kind === "close" && action?.type === "close" && action.whole)) state.followerId = null;
    else if (row.followerPositionId) state.followerId = row.followerPositionId;
  }
  return states;
}

/** A fill's follower position, once found (it was not open yet when the source's order filled). */
export async function setFillPosition(db: Db, requestId: string, followerPositionId: string): Promise<void> {
  await db
    .update(t)
    .set({ followerPositionId, updatedAt: sql`now()` })
    .where(and(eq(t.requestId, requestId), isNull(t.followerPositionId)));
}

/** Fills of these links, decided in the last day, whose follower position is not known yet (older ones are left: the resync shows them). */
export async function unresolvedFills(db: Db, linkIds: readonly string[]): Promise<LedgerRow[]> {
  if (linkIds.length === 0) return [];
  return db
    .select()
    .from(t)
    .where(
      and(
        inArray(t.linkId, [...linkIds]),
        eq(t.state, "done"),
        eq(t.sourceAction, "orderFilled"),
        eq(t.followerAction, "open"),
        isNull(t.followerPositionId),
        sql`${t.decidedAt} > now() - interval '1 day'`,
      ),
    )
    .limit(500);
}

/**
 * A follower's copied order filled on its server (its own `orderFilled` event): the placing row
 * and, if the source's order filled first, the fill's row name the position it opened.
 */
export async function followerOrderFilled(
  db: Db,
  linkIds: readonly string[],
  platformId: string,
  login: string,
  orderId: string,
  positionId: string,
): Promise<void> {
  if (linkIds.length === 0) return;
  const follower = and(inArray(t.linkId, [...linkIds]), eq(t.followerPlatformId, platformId), eq(t.followerLogin, login), eq(t.state, "done"));
  await db
    .update(t)
    .set({ followerPositionId: positionId, updatedAt: sql`now()` })
    .where(and(follower, eq(t.followerAction, "placeOrder"), eq(t.followerPositionId, orderId)));
  await db
    .update(t)
    .set({ followerPositionId: positionId, updatedAt: sql`now()` })
    .where(and(follower, eq(t.sourceAction, "orderFilled"), isNull(t.followerPositionId), sql`${t.action}->>'orderId' = ${orderId}`));
}
