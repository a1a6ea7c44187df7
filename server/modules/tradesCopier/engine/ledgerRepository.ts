/**
 * The SQL of the copier's ledger (`copy_ledger`, server/db/tables/tradesCopier.ts): a row per
 * follower action, keyed by its request id, inserted before anything is sent. Every change to a
 * pending row names the lease holder it was taken by and that it is still pending; lease times are
 * the database's clock.
 */
import { and, asc, eq, getTableColumns, inArray, isNull, lt, or, sql } from "drizzle-orm";
import type { FollowerAction } from "../../../../core/copier/index.ts";
import { formatLots, lotsToVolume, type Volume } from "../../../../core/trading/index.ts";
import type { TradePlatformConnector } from "../../../connectors/connector.ts";
import type { Db } from "../../../db/client.ts";
import { rowsOf } from "../../../db/rows.ts";
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

/**
 * The decisions of a source action's whole fan-out in one statement: each row inserted, or taking
 * over a row never decided (as insertRow). Rows go in request-id order, so two nodes deciding the
 * same fan-out lock them in the same order. A pending row to be sent at once is recorded as sent
 * (its send time, one attempt) in the same statement: a crash before the send leaves a row whose
 * lease runs out and whose request id is sent again, exactly once (docs/trades-copier.md). Returns
 * the rows this call recorded, by request id; one that had a decision already is left out.
 *
 * The rows travel as one array per column (`unnest`): a statement of a thousand rows is a few
 * parameters, not twenty thousand, built and parsed in a fraction of the time.
 */
export async function insertRows(db: Db, rows: readonly { row: NewLedgerRow; leaseMs: number; sendNow: boolean }[]): Promise<Map<string, LedgerRow>> {
  const out = new Map<string, LedgerRow>();
  if (rows.length === 0) return out;
  const sorted = [...rows].sort((a, b) => (a.row.requestId < b.row.requestId ? -1 : a.row.requestId > b.row.requestId ? 1 : 0));
  const column = <T>(value: (r: (typeof sorted)[number]) => T) => sql.param(sorted.map(value));
  const iso = (d: Date) => d.toISOString();
  const result = await db.execute(sql`
    insert into ${t} (request_id, organization_id, link_id, follower_platform_id, follower_login, source_id, source_action,
      follower_action, state, reason, symbol, volume, source_volume, follower_position_id, action, attempts, lease_holder,
      lease_until, source_time, received_at, decided_at, sent_at)
    select r.request_id, r.organization_id, r.link_id, r.follower_platform_id, r.follower_login, r.source_id, r.source_action,
      r.follower_action, r.state, r.reason, r.symbol, r.volume, r.source_volume, r.follower_position_id, r.action,
      case when r.send_now then 1 else 0 end, r.lease_holder,
      case when r.state = 'pending' then now() + r.lease_ms * interval '1 millisecond' end,
      r.source_time, r.received_at, r.decided_at, case when r.send_now then now() end
    from unnest(
      ${column((r) => r.row.requestId)}::text[], ${column((r) => r.row.organizationId)}::uuid[], ${column((r) => r.row.linkId)}::uuid[],
      ${column((r) => r.row.followerPlatformId)}::uuid[], ${column((r) => r.row.followerLogin)}::text[], ${column((r) => r.row.sourceId)}::text[],
      ${column((r) => r.row.sourceAction)}::text[], ${column((r) => r.row.followerAction ?? null)}::text[], ${column((r) => r.row.state)}::text[],
      ${column((r) => r.row.reason ?? null)}::text[], ${column((r) => r.row.symbol ?? null)}::text[], ${column((r) => r.row.volume ?? null)}::text[],
      ${column((r) => r.row.sourceVolume ?? null)}::integer[], ${column((r) => r.row.followerPositionId ?? null)}::text[],
      ${column((r) => (r.row.action === undefined || r.row.action === null ? null : JSON.stringify(r.row.action)))}::jsonb[],
      ${column((r) => r.row.leaseHolder ?? null)}::text[], ${column((r) => (r.row.state === "pending" ? Math.ceil(r.leaseMs) : null))}::integer[],
      ${column((r) => iso(r.row.sourceTime))}::timestamptz[], ${column((r) => iso(r.row.receivedAt))}::timestamptz[],
      ${column((r) => iso(r.row.decidedAt))}::timestamptz[], ${column((r) => r.row.state === "pending" && r.sendNow)}::boolean[]
    ) as r(request_id, organization_id, link_id, follower_platform_id, follower_login, source_id, source_action, follower_action,
      state, reason, symbol, volume, source_volume, follower_position_id, action, lease_holder, lease_ms, source_time, received_at,
      decided_at, send_now)
    order by r.request_id
    on conflict (request_id) do update set ${TAKE_OVER_UNREAD}, updated_at = now()
      where ${t}.state = 'failed' and ${t}.follower_action is null
    returning *`);
  for (const raw of rowsOf<Record<string, unknown>>(result)) {
    const row = fromDriver(raw);
    out.set(row.requestId, row);
  }
  return out;
}

const COLUMNS = Object.entries(getTableColumns(t));

/** A decision taking over a row never decided: every column is the decision's (a column it does not set is back to its default). */
const TAKE_OVER_UNREAD = sql.raw(
  COLUMNS.filter(([key]) => key !== "requestId" && key !== "createdAt" && key !== "updatedAt")
    .map(([, c]) => `"${c.name}" = excluded."${c.name}"`)
    .join(", "),
);

/** A row as the driver returns it from raw SQL (column names, the driver's types) in Drizzle's shape. */
function fromDriver(raw: Record<string, unknown>): LedgerRow {
  const row: Record<string, unknown> = {};
  for (const [key, c] of COLUMNS) {
    const value = raw[c.name];
    row[key] = value === null || value === undefined ? null : c.mapFromDriverValue(value);
  }
  return row as LedgerRow;
}

/** The rows of these request ids (a source action's fan-out, read at once). */
export async function findRows(db: Db, requestIds: readonly string[]): Promise<Map<string, LedgerRow>> {
  if (requestIds.length === 0) return new Map();
  // One array parameter, not one parameter per id.
  const rows = await db
    .select()
    .from(t)
    .where(sql`${t.requestId} = any(${sql.param([...requestIds])}::text[])`);
  return new Map(rows.map((row) => [row.requestId, row]));
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

export { settle } from "./settleRepository.ts";

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

const stateColumns = {
  sourceId: t.sourceId,
  followerPlatformId: t.followerPlatformId,
  followerLogin: t.followerLogin,
  followerAction: t.followerAction,
  state: t.state,
  followerPositionId: t.followerPositionId,
  action: t.action,
  requestId: t.requestId,
  symbol: t.symbol,
  volume: t.volume,
  sourceVolume: t.sourceVolume,
};
type StateRow = { [K in keyof typeof stateColumns]: LedgerRow[K] };

/** The copies of every source position or order of a link on one follower, from the done rows in order. */
export async function copyStates(db: Db, linkId: string, platformId: string, login: string): Promise<Map<string, CopyState>> {
  const rows = await db
    .select(stateColumns)
    .from(t)
    .where(and(eq(t.linkId, linkId), eq(t.followerPlatformId, platformId), eq(t.followerLogin, login), sql`${t.followerAction} is not null`))
    .orderBy(asc(t.decidedAt), asc(t.createdAt));
  return foldStates(rows);
}

/**
 * The copy of one source position or order on every follower of a link, by follower
 * (core/copier followerKey): one read for a source action's whole fan-out.
 */
export async function copyStatesOfSource(db: Db, linkId: string, sourceId: string): Promise<Map<string, CopyState>> {
  const rows = await db
    .select(stateColumns)
    .from(t)
    .where(and(eq(t.linkId, linkId), eq(t.sourceId, sourceId), sql`${t.followerAction} is not null`))
    .orderBy(asc(t.decidedAt), asc(t.createdAt));
  const byFollower = new Map<string, StateRow[]>();
  for (const row of rows) {
    const key = `${row.followerPlatformId}:${row.followerLogin}`;
    const list = byFollower.get(key);
    if (list) list.push(row);
    else byFollower.set(key, [row]);
  }
  const out = new Map<string, CopyState>();
  for (const [key, list] of byFollower) {
    const state = foldStates(list).get(sourceId);
    if (state) out.set(key, state);
  }
  return out;
}

/** What every follower of a link holds of each source position or order (the catch-up's one read), by follower (core/copier followerKey). */
export async function copyStatesOfLink(db: Db, linkId: string): Promise<Map<string, Map<string, CopyState>>> {
  const rows = await db
    .select(stateColumns)
    .from(t)
    .where(and(eq(t.linkId, linkId), sql`${t.followerAction} is not null`))
    .orderBy(asc(t.decidedAt), asc(t.createdAt));
  const byFollower = new Map<string, StateRow[]>();
  for (const row of rows) {
    const key = `${row.followerPlatformId}:${row.followerLogin}`;
    const list = byFollower.get(key);
    if (list) list.push(row);
    else byFollower.set(key, [row]);
  }
  return new Map([...byFollower].map(([key, list]) => [key, foldStates(list)]));
}

/** The rows of one follower, decided in order, folded into what it holds of each source position or order. */
function foldStates(rows: readonly StateRow[]): Map<string, CopyState> {
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
