/**
 * The SQL of the logs area: the audit log's reads (GET /api/logs/audit and audit.csv), the audit
 * retention setting and its sweep. The list reads one organization's rows, filtered with
 * parameters only, sorted by time (then id, so paging never repeats or skips a row). The (organization_id, at) index serves the list and the time range, a trigram
 * index the free text; the list's total is counted up to a cap (decision 0054).
 */
import { and, asc, count, desc, eq, gte, ilike, lte, or, sql, type SQL } from "drizzle-orm";
import type { AuditEvent, AuditFilters, AuditPage, AuditQuery } from "../../../core/schemas/logs.ts";
import type { Db } from "../../db/client.ts";
import type { DbOrTx } from "../../db/client.ts";
import { auditEvents, auditSearchText, DEFAULT_AUDIT_RETENTION_DAYS, logSettings } from "../../db/schema.ts";
import { targetNames } from "./targetNamesRepository.ts";

const a = auditEvents;

/** `%text%` for ILIKE, with the pattern's own wildcards taken literally. */
const contains = (text: string) => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

function where(organizationId: string, f: AuditFilters): SQL | undefined {
  return and(
    eq(a.organizationId, organizationId),
    f.from ? gte(a.at, new Date(f.from)) : undefined,
    f.to ? lte(a.at, new Date(f.to)) : undefined,
    f.actor ? or(ilike(a.actorName, contains(f.actor)), eq(a.actorSub, f.actor)) : undefined,
    // Any part of the action: "balance" finds account.balanceOperation.*, "created" every creation.
    f.action ? ilike(a.action, contains(f.action)) : undefined,
    f.target ? or(ilike(a.targetType, contains(f.target)), ilike(a.targetId, contains(f.target))) : undefined,
    // One expression over every field, the one the trigram index is built on (decision 0054).
    f.q ? ilike(auditSearchText(a), contains(f.q)) : undefined,
  );
}

const order = (dir: "asc" | "desc") => (dir === "asc" ? [asc(a.at), asc(a.id)] : [desc(a.at), desc(a.id)]);

type Row = typeof auditEvents.$inferSelect;

export function auditView(row: Row, names?: ReadonlyMap<string, string>): AuditEvent {
  return {
    id: row.id,
    at: row.at.toISOString(),
    actorSub: row.actorSub,
    actorName: row.actorName,
    action: row.action,
    targetType: row.targetType,
    targetId: row.targetId,
    targetName: names?.get(`${row.targetType}|${row.targetId}`) ?? null,
    before: row.before ?? null,
    after: row.after ?? null,
    sourceIp: row.sourceIp,
  };
}

/**
 * The list counts at most this many matching rows past the page's offset: past it, `total` is a
 * lower bound and `totalCapped` is true. Counting every match of a large organization's log on
 * every page would read the whole log each time (decision 0054).
 */
export const AUDIT_COUNT_CAP = 10_000;

/** One page of the list (exported for the tests that read its plan). */
export const auditPageQuery = (db: Db, organizationId: string, query: AuditQuery) =>
  db
    .select()
    .from(a)
    .where(where(organizationId, query))
    .orderBy(...order(query.sort))
    .limit(query.limit)
    .offset(query.offset);

export async function listAudit(db: Db, organizationId: string, query: AuditQuery): Promise<AuditPage> {
  const filter = where(organizationId, query);
  const rows = await auditPageQuery(db, organizationId, query);
  const names = await targetNames(db, organizationId, rows);
  const items = rows.map((row) => auditView(row, names));
  // A short page tells the total; otherwise count the matches, up to the cap past the offset.
  if (rows.length < query.limit && (rows.length > 0 || query.offset === 0)) return { items, total: query.offset + rows.length, totalCapped: false };
  const bound = query.offset + AUDIT_COUNT_CAP;
  const matching = db
    .select({ one: sql`1` })
    .from(a)
    .where(filter)
    .limit(bound + 1)
    .as("matching");
  const [counted] = await db.select({ n: count() }).from(matching);
  const n = Number(counted?.n ?? 0);
  return { items, total: Math.min(n, bound), totalCapped: n > bound };
}

const EXPORT_PAGE = 1000;

/**
 * Every row matching the filters, a page at a time (the server holds one page whatever the
 * export's size). Without `to`, the export ends at its start time, so rows written meanwhile
 * do not shift the pages.
 */
export async function allAudit(db: Db, organizationId: string, filters: AuditFilters) {
  const bounded = { ...filters, to: filters.to ?? new Date().toISOString() };
  const filter = where(organizationId, bounded);
  const [counted] = await db.select({ n: count() }).from(a).where(filter);
  async function* pages(): AsyncGenerator<AuditEvent[]> {
    for (let offset = 0; ; offset += EXPORT_PAGE) {
      const rows = await db
        .select()
        .from(a)
        .where(filter)
        .orderBy(...order(bounded.sort))
        .limit(EXPORT_PAGE)
        .offset(offset);
      if (rows.length > 0) {
        const names = await targetNames(db, organizationId, rows);
        yield rows.map((row) => auditView(row, names));
      }
      if (rows.length < EXPORT_PAGE) return;
    }
  }
  return { total: Number(counted?.n ?? 0), pages: pages() };
}

export async function getLogSettings(db: Db, organizationId: string): Promise<{ auditRetentionDays: number }> {
  const [row] = await db.select().from(logSettings).where(eq(logSettings.organizationId, organizationId));
  return { auditRetentionDays: row?.auditRetentionDays ?? DEFAULT_AUDIT_RETENTION_DAYS };
}

export async function putLogSettings(db: DbOrTx, organizationId: string, auditRetentionDays: number): Promise<void> {
  await db
    .insert(logSettings)
    .values({ organizationId, auditRetentionDays })
    .onConflictDoUpdate({ target: logSettings.organizationId, set: { auditRetentionDays, updatedAt: sql`now()` } });
}

/** At most this many rows per statement: a sweep never holds a long lock or a huge transaction. */
export const SWEEP_BATCH = 5_000;

/**
 * Deletes audit rows older than each organization's retention, in batches of SWEEP_BATCH and at
 * most `maxBatches` of them per call (the periodic sweep comes back for the rest). Returns the
 * number of rows removed.
 */
export async function sweepAudit(db: Db, opts: { organizationId?: string; maxBatches?: number } = {}): Promise<number> {
  const days = sql`coalesce((select ${logSettings.auditRetentionDays} from ${logSettings} where ${logSettings.organizationId} = ${a.organizationId}), ${DEFAULT_AUDIT_RETENTION_DAYS})`;
  let removed = 0;
  for (let batch = 0; batch < (opts.maxBatches ?? 20); batch++) {
    const expired = db
      .select({ id: a.id })
      .from(a)
      .where(and(sql`${a.at} < now() - make_interval(days => ${days})`, opts.organizationId ? eq(a.organizationId, opts.organizationId) : undefined))
      .limit(SWEEP_BATCH);
    const rows = await db
      .delete(a)
      .where(sql`${a.id} in (${expired})`)
      .returning({ id: a.id });
    removed += rows.length;
    if (rows.length < SWEEP_BATCH) break;
  }
  return removed;
}
