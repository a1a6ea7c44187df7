/**
 * The accounts list (GET /api/accounts): one query on the mirror, scoped by organization (the
 * leading column of every index), filtered and sorted from a whitelist, parameters only.
 *
 * Fast at 100,000 accounts (docs/decisions/0034-accounts-list-at-scale.md):
 *  - every sort field has an index ending with the tiebreaker, in the order the query asks for,
 *    so a page is an index range of `limit` rows, not a sort of the organization's accounts;
 *  - "name contains" and "e-mail contains" use trigram indexes (`pg_trgm`);
 *  - the total is not counted for every page: a short page tells it exactly, otherwise it comes
 *    from a count made for the same filters within the last few seconds (one count at a time
 *    per filter, however many requests ask);
 *  - platforms are named from a map rather than a join (planning a join over these indexes took
 *    longer than running the query), and times are formatted by the database (no Date per cell).
 */
import { and, eq, gte, inArray, lte, sql, type SQL } from "drizzle-orm";
import type { AnyPgColumn } from "drizzle-orm/pg-core";
import { compileMask } from "../../../core/trading/index.ts";
import type { Db } from "../../db/client.ts";
import { tradePlatforms, tradingAccounts } from "../../db/schema.ts";
import { rowsOf } from "../../db/rows.ts";
import { rowColumns } from "./repository.ts";
import { jsonAnswer, jsonString } from "./jsonAnswer.ts";
import type { AccountRow, AccountSortField, ListAccountsQuery } from "./schemas.ts";

const t = tradingAccounts;
const loginLength = sql`length(${t.login})`;

/**
 * What each sort field orders by, then the tiebreaker that makes the order total (so paging
 * never repeats or skips a row). The tiebreaker runs in the sort's direction, so one index
 * (server/db/tables/accounts.ts) serves a field both ways; nullable fields put the empty ones
 * last either way (and have an index per direction).
 */
const SORTS: Record<AccountSortField, { by: AnyPgColumn | SQL; tie?: (AnyPgColumn | SQL)[]; nullable?: true }> = {
  platformId: { by: t.platformId, tie: [loginLength, t.login] },
  platformName: { by: tradePlatforms.name },
  platformType: { by: tradePlatforms.type },
  // Numeric logins sort as numbers: shorter first, then by text.
  login: { by: loginLength, tie: [t.login, t.platformId] },
  group: { by: t.group },
  name: { by: t.name },
  email: { by: t.email },
  leverage: { by: t.leverage },
  currency: { by: t.currency },
  balance: { by: t.balance },
  credit: { by: t.credit },
  equity: { by: t.equity },
  margin: { by: t.margin },
  freeMargin: { by: t.freeMargin },
  marginLevel: { by: t.marginLevel, nullable: true },
  marginState: { by: t.marginState },
  enabled: { by: t.enabled },
  readOnly: { by: t.readOnly },
  registration: { by: t.registration },
  lastAccess: { by: t.lastAccess, nullable: true },
};
const TIE = [t.platformId, loginLength, t.login];

function ordering(field: AccountSortField, dir: "asc" | "desc"): SQL[] {
  const { by, tie = TIE, nullable } = SORTS[field];
  // "nulls last" on every key of a nullable sort, as its descending index is declared.
  const direction = sql.raw(nullable ? `${dir} nulls last` : dir);
  return [by, ...tie].map((key) => sql`${key} ${direction}`);
}

/** LIKE pattern text for a literal: `\`, `%` and `_` lose their meaning (`\` is LIKE's escape). */
export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, "\\$&");
}

/** How long a count, and the organization's group and platform names, answer later requests. */
const FRESH_MS = 3000;
/**
 * How long an older value still answers while its next load runs: under load a count is asked
 * for again every few seconds, and every request in the meantime waiting on it made the list's
 * p99 several times its p50 (issue 30); a key not asked for this long is loaded and waited for.
 */
const STALE_MS = 10_000;
const MAX_CACHED = 5000;

interface Cached<T> {
  at: number;
  value: Promise<T>;
  /** Whether `value` has resolved (it may answer while the next load runs). */
  ready?: true;
  refreshing?: true;
}

/**
 * Per database (one per app), results that may be a few seconds old: concurrent requests for the
 * same key share one query, and a failed one is not kept. Once a value is older than FRESH_MS,
 * the next request starts one new load and, until it is done, the last value keeps answering.
 */
export class ShortLivedCache<T> {
  private readonly entries = new Map<string, Cached<T>>();

  get(key: string, load: () => Promise<T>): Promise<T> {
    const now = Date.now();
    const hit = this.entries.get(key);
    if (hit && now - hit.at < FRESH_MS) return hit.value;
    if (hit?.ready && now - hit.at < STALE_MS) {
      if (!hit.refreshing) {
        hit.refreshing = true;
        const next = this.begin(load, now);
        next.value.then(
          () => {
            if (this.entries.get(key) === hit) this.entries.set(key, next);
          },
          () => delete hit.refreshing,
        );
      }
      return hit.value;
    }
    if (this.entries.size >= MAX_CACHED) {
      for (const [k, entry] of this.entries) if (now - entry.at >= STALE_MS) this.entries.delete(k);
      if (this.entries.size >= MAX_CACHED) this.entries.clear();
    }
    const entry = this.begin(load, now);
    this.entries.set(key, entry);
    entry.value.catch(() => {
      if (this.entries.get(key) === entry) this.entries.delete(key);
    });
    return entry.value;
  }

  private begin(load: () => Promise<T>, at: number): Cached<T> {
    const entry: Cached<T> = { at, value: load() };
    entry.value.then(
      () => (entry.ready = true),
      () => undefined,
    );
    return entry;
  }
}

type PlatformNames = Map<string, { platformName: string; platformType: AccountRow["platformType"] }>;

const caches = new WeakMap<Db, { groups: ShortLivedCache<string[]>; counts: ShortLivedCache<number>; platforms: ShortLivedCache<PlatformNames> }>();
function cachesOf(db: Db) {
  let c = caches.get(db);
  if (!c) caches.set(db, (c = { groups: new ShortLivedCache(), counts: new ShortLivedCache(), platforms: new ShortLivedCache() }));
  return c;
}

/**
 * The organization's platforms by id. A page names them from this map rather than joining
 * `trade_platforms`: with a join, planning the query costs several times its execution.
 */
async function platformNames(db: Db, organizationId: string, fresh = false): Promise<PlatformNames> {
  const load = async (): Promise<PlatformNames> => {
    const rows = await db
      .select({ id: tradePlatforms.id, platformName: tradePlatforms.name, platformType: tradePlatforms.type })
      .from(tradePlatforms)
      .where(eq(tradePlatforms.organizationId, organizationId));
    return new Map(rows.map(({ id, ...names }) => [id, names]));
  };
  return fresh ? load() : cachesOf(db).platforms.get(organizationId, load);
}

/**
 * The organization's distinct group names, by a loose index scan on (organization_id, group):
 * one index probe per group, however many accounts there are.
 */
async function distinctGroups(db: Db, organizationId: string): Promise<string[]> {
  const result = await db.execute<{ group: string }>(sql`
    with recursive g as (
      (select "group" from trading_accounts s where s.organization_id = ${organizationId}::uuid order by "group" limit 1)
      union all
      select (
        select t."group" from trading_accounts t
        where t.organization_id = ${organizationId}::uuid and t."group" > g."group"
        order by t."group" limit 1
      ) from g where g."group" is not null
    )
    select "group" from g where "group" is not null`);
  return rowsOf<{ group: string }>(result).map((r) => r.group);
}

/**
 * A group mask as a condition: the mask is matched with core/trading/mask.ts itself (the
 * platforms' semantics by construction: `*`, `!` exclusions first, any case) against the few
 * distinct group names, and the rows are selected by equality on the indexed column.
 */
async function groupCondition(db: Db, organizationId: string, q: ListAccountsQuery): Promise<SQL | undefined> {
  if (!q.groupMask || q.groupMask.split(",").every((p) => p.trim() === "")) return undefined;
  const matches = compileMask(q.groupMask);
  const groups = (await cachesOf(db).groups.get(organizationId, () => distinctGroups(db, organizationId))).filter((g) => matches(g));
  return groups.length > 0 ? inArray(t.group, groups) : sql`false`;
}

function filters(organizationId: string, q: ListAccountsQuery, groups: SQL | undefined): SQL | undefined {
  const conditions: (SQL | undefined)[] = [eq(t.organizationId, organizationId), groups];
  if (q.platformId) conditions.push(eq(t.platformId, q.platformId));
  if (q.login) conditions.push(q.login.endsWith("*") ? sql`${t.login} like ${`${escapeLike(q.login.slice(0, -1))}%`}` : eq(t.login, q.login));
  if (q.name) conditions.push(sql`${t.name} ilike ${`%${escapeLike(q.name)}%`}`);
  if (q.email) conditions.push(sql`${t.email} ilike ${`%${escapeLike(q.email)}%`}`);
  if (q.balanceMin !== undefined) conditions.push(gte(t.balance, q.balanceMin));
  if (q.balanceMax !== undefined) conditions.push(lte(t.balance, q.balanceMax));
  if (q.equityMin !== undefined) conditions.push(gte(t.equity, q.equityMin));
  if (q.equityMax !== undefined) conditions.push(lte(t.equity, q.equityMax));
  return and(...conditions);
}

/** What identifies a count: the organization and the filters (not the sort, not the page). */
function countKey(organizationId: string, q: ListAccountsQuery): string {
  const { platformId, login, groupMask, name, email, balanceMin, balanceMax, equityMin, equityMax } = q;
  return JSON.stringify([organizationId, platformId, login, groupMask, name, email, balanceMin, balanceMax, equityMin, equityMax]);
}

/** An ISO 8601 UTC time with milliseconds, as Date.toISOString writes it (null stays null). */
const isoTime = <T extends string | null>(column: AnyPgColumn) => sql<T>`to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

// The account row's columns (repository.ts) without the platform join; the two times as ISO text
// (the literal page `pageQuery` gives, which tests compare the route's answers with).
const { platformName: _name, platformType: _type, registration: _registration, lastAccess: _lastAccess, ...accountColumns } = rowColumns;
const listColumns = {
  ...accountColumns,
  registration: isoTime<string>(t.registration).as("registration"),
  lastAccess: isoTime<string | null>(t.lastAccess).as("last_access"),
};

/**
 * A page's row as JSON text, written by the database (issue 30): `row_to_json` over the columns
 * aliased in the API row's shape, money as its numeric text ("1250.50", as the API shows it) and
 * times formatted. The process then neither reads every field of every row (pg's parser, a string
 * per field) nor writes them out again (the serializer): reading and writing the fields was most
 * of the list's own work in a profile. Only the platform's name and type are added here (from the
 * names map, not a join: see `platformNames`).
 */
const text = (column: AnyPgColumn, name: string) => sql<string>`${column}::text`.as(name);
const same = (column: AnyPgColumn, name: string) => sql`${column}`.as(name);
const jsonColumns = {
  // First, so that the text starts `{"platformId":"<id>"` and the names go in right after it.
  platformId: same(t.platformId, "platformId"),
  login: same(t.login, "login"),
  group: same(t.group, "group"),
  name: same(t.name, "name"),
  email: same(t.email, "email"),
  leverage: same(t.leverage, "leverage"),
  currency: same(t.currency, "currency"),
  balance: text(t.balance, "balance"),
  credit: text(t.credit, "credit"),
  equity: text(t.equity, "equity"),
  margin: text(t.margin, "margin"),
  freeMargin: text(t.freeMargin, "freeMargin"),
  marginLevel: text(t.marginLevel, "marginLevel"),
  marginState: same(t.marginState, "marginState"),
  enabled: same(t.enabled, "enabled"),
  readOnly: same(t.readOnly, "readOnly"),
  registration: isoTime<string>(t.registration).as("registration"),
  lastAccess: isoTime<string | null>(t.lastAccess).as("lastAccess"),
};

/** A page's row: the platform's id, and the row as JSON text (with `platformId` first). */
interface JsonRow {
  platform_id: string;
  json: string;
}

function selectList(db: Db, where: SQL | undefined, sort: AccountSortField, columns: typeof listColumns | typeof jsonColumns = listColumns) {
  const query = db.select(columns).from(t).$dynamic();
  // Only a sort by the platform's name or type needs its table.
  const sortedByPlatform = sort === "platformName" || sort === "platformType";
  return (sortedByPlatform ? query.innerJoin(tradePlatforms, eq(tradePlatforms.id, t.platformId)) : query).where(where);
}

function selectPage(db: Db, where: SQL | undefined, q: ListAccountsQuery) {
  return selectList(db, where, q.sort)
    .orderBy(...ordering(q.sort, q.dir))
    .limit(q.limit)
    .offset(q.offset);
}

/**
 * The page as JSON rows: the page's columns in the API row's shape (sorted, limited) as a
 * subquery, each row of it turned into its JSON text; the subquery's order is kept (a plain scan
 * of it), and only the page's rows are turned into text, not those an offset skips.
 */
function jsonPage(db: Db, where: SQL | undefined, sort: AccountSortField, order: SQL[], limit: unknown, offset: unknown) {
  const page = selectList(db, where, sort, jsonColumns)
    .orderBy(...order)
    .limit(limit as number)
    .offset(offset as number)
    .as("page");
  return db.select({ platform_id: sql<string>`${page.platformId}`.as("platform_id"), json: sql<string>`row_to_json(page)::text`.as("json") }).from(page);
}

/** The page's query as SQL, unrun (tests check its plan). */
export async function pageQuery(db: Db, organizationId: string, q: ListAccountsQuery): Promise<SQL> {
  return selectPage(db, filters(organizationId, q, await groupCondition(db, organizationId, q)), q).getSQL();
}

/**
 * What a page's statement looks like apart from its values: the sort, the direction and which
 * filters are set (a login ending in `*` is a prefix). One prepared statement per shape.
 */
function shapeOf(q: ListAccountsQuery, grouped: boolean): string {
  const set = (v: unknown) => (v === undefined || v === "" ? "0" : "1");
  const login = !q.login ? "0" : q.login.endsWith("*") ? "p" : "1";
  return [q.sort, q.dir, grouped ? "1" : "0", set(q.platformId), login, set(q.name), set(q.email)]
    .concat([q.balanceMin, q.balanceMax, q.equityMin, q.equityMax].map(set))
    .join("");
}

/** At most this many shapes are prepared per database; others run as plain statements (never seen in practice: 20 sorts × 2 × the filters a screen sets). */
const MAX_SHAPES = 500;
type PreparedPage = ReturnType<Db["_"]["session"]["prepareQuery"]>;
const prepared = new WeakMap<Db, Map<string, PreparedPage>>();
const $ = (name: string) => sql.placeholder(name);

/**
 * The page's statement for a shape, with its values as placeholders: built by Drizzle once, then
 * prepared by name (PostgreSQL parses and plans it once per connection), its rows given as the
 * driver reads them (no Drizzle mapping). The group mask becomes `= any($n)`, so any number of
 * matching groups is one shape.
 */
function pageStatement(db: Db, shape: string, q: ListAccountsQuery, grouped: boolean): PreparedPage {
  let shapes = prepared.get(db);
  if (!shapes) prepared.set(db, (shapes = new Map<string, PreparedPage>()));
  const known = shapes.get(shape);
  if (known) return known;
  const conditions: (SQL | undefined)[] = [sql`${t.organizationId} = ${$("organizationId")}`];
  if (grouped) conditions.push(sql`${t.group} = any(${$("groups")})`);
  if (q.platformId) conditions.push(sql`${t.platformId} = ${$("platformId")}`);
  if (q.login) conditions.push(q.login.endsWith("*") ? sql`${t.login} like ${$("login")}` : sql`${t.login} = ${$("login")}`);
  if (q.name) conditions.push(sql`${t.name} ilike ${$("name")}`);
  if (q.email) conditions.push(sql`${t.email} ilike ${$("email")}`);
  if (q.balanceMin !== undefined) conditions.push(sql`${t.balance} >= ${$("balanceMin")}`);
  if (q.balanceMax !== undefined) conditions.push(sql`${t.balance} <= ${$("balanceMax")}`);
  if (q.equityMin !== undefined) conditions.push(sql`${t.equity} >= ${$("equityMin")}`);
  if (q.equityMax !== undefined) conditions.push(sql`${t.equity} <= ${$("equityMax")}`);
  const query = jsonPage(db, and(...conditions), q.sort, ordering(q.sort, q.dir), $("limit"), $("offset")).toSQL();
  const named = shapes.size < MAX_SHAPES;
  const statement = db._.session.prepareQuery({ sql: query.sql, params: query.params }, undefined, named ? `accounts_page_${shapes.size}` : undefined, false);
  if (named) shapes.set(shape, statement);
  return statement;
}

/** The groups the mask selects, or undefined without a mask. */
async function maskedGroups(db: Db, organizationId: string, q: ListAccountsQuery): Promise<string[] | undefined> {
  if (!q.groupMask || q.groupMask.split(",").every((p) => p.trim() === "")) return undefined;
  const matches = compileMask(q.groupMask);
  return (await cachesOf(db).groups.get(organizationId, () => distinctGroups(db, organizationId))).filter((g) => matches(g));
}

export async function listAccounts(db: Db, organizationId: string, q: ListAccountsQuery): Promise<{ items: AccountRow[]; total: number }> {
  const groups = await maskedGroups(db, organizationId, q);
  const counting = cachesOf(db).counts.get(countKey(organizationId, q), async () => {
    const where = filters(organizationId, q, groups === undefined ? undefined : groups.length > 0 ? inArray(t.group, groups) : sql`false`);
    const [row] = await db
      .select({ total: sql<string | number>`count(*)` })
      .from(t)
      .where(where);
    return Number(row?.total ?? 0);
  });
  counting.catch(() => undefined); // awaited below only when needed; never left unhandled
  const values = {
    organizationId,
    groups,
    platformId: q.platformId,
    login: q.login?.endsWith("*") ? `${escapeLike(q.login.slice(0, -1))}%` : q.login,
    name: q.name ? `%${escapeLike(q.name)}%` : undefined,
    email: q.email ? `%${escapeLike(q.email)}%` : undefined,
    balanceMin: q.balanceMin,
    balanceMax: q.balanceMax,
    equityMin: q.equityMin,
    equityMax: q.equityMax,
    limit: q.limit,
    offset: q.offset,
  };
  const statement = pageStatement(db, shapeOf(q, groups !== undefined), q, groups !== undefined);
  const [result, names] = await Promise.all([statement.execute(values), platformNames(db, organizationId)]);
  const rows = rowsOf<JsonRow>(result);
  // A platform added since the names were read: read them again.
  const named = rows.every((r) => names.has(r.platform_id)) ? names : await platformNames(db, organizationId, true);
  const seen = q.offset + rows.length;
  // A short page ends the list: the total is exact without counting. Otherwise the count (maybe
  // a few seconds old) is never less than what this page shows.
  const total = rows.length < q.limit && (rows.length > 0 || q.offset === 0) ? seen : Math.max(await counting, seen);
  // A platform deleted meanwhile takes its accounts with it: they are no longer listed.
  const items = rows.filter((row) => named.has(row.platform_id)).map((row) => withPlatform(row, named));
  return jsonAnswer(`{"items":[${items.join(",")}],"total":${total}}`);
}

/**
 * The row's JSON text with the platform's name and type after its id: the text starts with
 * `{"platformId":"<id>"` (jsonColumns), an id is a UUID (no character to escape).
 */
function withPlatform(row: JsonRow, platforms: PlatformNames): string {
  const { platformName, platformType } = platforms.get(row.platform_id)!;
  const at = '{"platformId":"'.length + row.platform_id.length + 1;
  return `${row.json.slice(0, at)},"platformName":${jsonString(platformName)},"platformType":${jsonString(platformType)}${row.json.slice(at)}`;
}
