/**
 * The overview's figures, computed in the database for one organization: a few aggregate queries
 * over the accounts mirror (trading_accounts), the open positions (trade_positions) and the deals
 * (trade_deals, whose (organization_id, time) index bounds every range here). Its days and hours
 * are the reader's: the member's own zone, else the organization's, else UTC (decision 0078).
 */
import { and, asc, count, eq, gte, inArray, sql } from "drizzle-orm";
import { DISPLAY_PREFERENCE_KEY, supportedTimeZone } from "../../../core/format.ts";
import type { Overview, OverviewPoint } from "../../../core/schemas/overview.ts";
import type { Db } from "../../db/client.ts";
import { memberPreferences, organizations, tradeDeals, tradePlatforms, tradePositions, tradingAccounts } from "../../db/schema.ts";
import { rowsOf } from "../../db/rows.ts";
import { blotterPlatformIds } from "../tradeHistory/repository/blotterPlatforms.ts";
import type { PlatformRuntime } from "../tradePlatforms/runtime/runtime.ts";

const d = tradeDeals;
const HOUR = 3_600_000;

const trades = inArray(d.action, ["buy", "sell"]);
const lots = (expr: ReturnType<typeof sql>) => sql<string>`coalesce(${expr}, 0)::numeric(20,4)::text`;
const money = (expr: ReturnType<typeof sql>) => sql<string>`coalesce(${expr}, 0)::numeric(20,2)::text`;
/** Trims "1.5000" to "1.5" (the API's lots style), keeping at least one digit. */
const trimLots = (v: string) => (v.includes(".") ? v.replace(/0+$/, "").replace(/\.$/, "") : v);

/**
 * The zone whose days and hours the overview counts in, as the screens show times (decision
 * 0078): the member's own display zone, else the organization's default, else UTC. A zone this
 * runtime does not know is passed over.
 */
export async function overviewTimeZone(db: Db, organizationId: string, sub: string): Promise<string> {
  const [[mine], [organization]] = await Promise.all([
    db
      .select({ value: memberPreferences.value })
      .from(memberPreferences)
      .where(and(eq(memberPreferences.organizationId, organizationId), eq(memberPreferences.userSub, sub), eq(memberPreferences.key, DISPLAY_PREFERENCE_KEY))),
    db.select({ timeZone: organizations.timeZone }).from(organizations).where(eq(organizations.id, organizationId)),
  ]);
  const own = (mine?.value as { timeZone?: unknown } | undefined)?.timeZone;
  return supportedTimeZone(typeof own === "string" ? own : null) ?? supportedTimeZone(organization?.timeZone) ?? "UTC";
}

/**
 * Where the current hour, today and the 7 days' window start in the zone, by the database's own
 * zone rules (23- and 25-hour days included; a half-hour zone's hours start at :30 UTC).
 */
async function starts(db: Db, now: Date, timeZone: string): Promise<{ hour: Date; day: Date; week: Date }> {
  const at = sql`${now.toISOString()}::timestamptz`;
  const result = await db.execute(sql`
    select date_trunc('hour', ${at}, ${timeZone})::text as hour,
      date_trunc('day', ${at}, ${timeZone})::text as day,
      ((date_trunc('day', ${at} at time zone ${timeZone}) - interval '6 days') at time zone ${timeZone})::text as week`);
  const [row] = rowsOf<{ hour: string; day: string; week: string }>(result);
  if (!row) throw new Error("The overview's day was not computed.");
  return { hour: new Date(row.hour), day: new Date(row.day), week: new Date(row.week) };
}

async function series(db: Db, organizationId: string, since: Date, unit: "hour" | "day", timeZone: string): Promise<OverviewPoint[]> {
  // The unit inline (from the two above), not a parameter: the select and the group by must be one expression.
  const bucket = sql<Date>`date_trunc('${sql.raw(unit)}', ${d.time}, ${sql.raw(`'${timeZone.replace(/'/g, "''")}'`)})`;
  const rows = await db
    .select({
      platformId: d.platformId,
      at: bucket,
      volume: lots(sql`sum(${d.volume})`),
      profit: money(sql`sum(${d.profit} + ${d.commission} + ${d.swap})`),
    })
    .from(d)
    .where(and(eq(d.organizationId, organizationId), gte(d.time, since), trades))
    .groupBy(d.platformId, bucket)
    .orderBy(asc(bucket), asc(d.platformId));
  return rows.map((r) => ({ platformId: r.platformId, at: new Date(r.at).toISOString(), volume: trimLots(r.volume), profit: r.profit }));
}

export async function overviewOf(
  db: Db,
  runtime: PlatformRuntime,
  organizationId: string,
  timeZone = "UTC",
  now = new Date(),
): Promise<Omit<Overview, "copier">> {
  const { hour: hourStart, day: dayStart, week: weekStart } = await starts(db, now, timeZone);
  const [recorded, platforms, accounts, positions, today, hourly, daily] = await Promise.all([
    blotterPlatformIds(db, organizationId, undefined),
    db
      .select({ id: tradePlatforms.id, name: tradePlatforms.name, type: tradePlatforms.type })
      .from(tradePlatforms)
      .where(eq(tradePlatforms.organizationId, organizationId))
      .orderBy(asc(tradePlatforms.name), asc(tradePlatforms.id)),
    db
      .select({ platformId: tradingAccounts.platformId, n: count() })
      .from(tradingAccounts)
      .where(eq(tradingAccounts.organizationId, organizationId))
      .groupBy(tradingAccounts.platformId),
    db
      .select({ platformId: tradePositions.platformId, n: count() })
      .from(tradePositions)
      .where(eq(tradePositions.organizationId, organizationId))
      .groupBy(tradePositions.platformId),
    db
      .select({
        platformId: d.platformId,
        volume: lots(sql`sum(${d.volume}) filter (where ${trades})`),
        profit: money(sql`sum(${d.profit} + ${d.commission} + ${d.swap}) filter (where ${trades})`),
        deposits: money(sql`sum(${d.profit}) filter (where ${d.action} = 'balance' and ${d.profit} > 0)`),
        withdrawals: money(sql`-sum(${d.profit}) filter (where ${d.action} = 'balance' and ${d.profit} < 0)`),
        credit: money(sql`sum(${d.profit}) filter (where ${d.action} = 'credit')`),
      })
      .from(d)
      .where(and(eq(d.organizationId, organizationId), gte(d.time, dayStart)))
      .groupBy(d.platformId),
    series(db, organizationId, new Date(hourStart.getTime() - 23 * HOUR), "hour", timeZone),
    series(db, organizationId, weekStart, "day", timeZone),
  ]);
  const byPlatform = <T extends { platformId: string }>(rows: T[]) => new Map(rows.map((r) => [r.platformId, r]));
  const accountsOf = byPlatform(accounts);
  const positionsOf = byPlatform(positions);
  const todayOf = byPlatform(today);
  const history = new Set(recorded);
  return {
    asOf: now.toISOString(),
    timeZone,
    dayStart: dayStart.toISOString(),
    platforms: platforms.map((p) => {
      const { state, lastError } = runtime.liveState(p.id);
      const t = todayOf.get(p.id);
      const accountCount = Number(accountsOf.get(p.id)?.n ?? 0);
      if (!history.has(p.id)) {
        const none = { openPositions: null, volumeToday: null, profitToday: null, depositsToday: null, withdrawalsToday: null, creditToday: null };
        return { platformId: p.id, name: p.name, type: p.type, state, lastError, accounts: accountCount, tradeHistory: false, ...none };
      }
      return {
        platformId: p.id,
        name: p.name,
        type: p.type,
        state,
        lastError,
        accounts: accountCount,
        tradeHistory: true,
        openPositions: Number(positionsOf.get(p.id)?.n ?? 0),
        volumeToday: trimLots(t?.volume ?? "0"),
        profitToday: t?.profit ?? "0.00",
        depositsToday: t?.deposits ?? "0.00",
        withdrawalsToday: t?.withdrawals ?? "0.00",
        creditToday: t?.credit ?? "0.00",
      };
    }),
    hourly,
    daily,
  };
}
