/**
 * The mirror's writes: one multi-row upsert per batch, the rows passed as one array per column
 * through `unnest` (a handful of parameters whatever the batch size, so a 1,000-row page is one
 * short statement on PostgreSQL and PGlite alike).
 */
import { sql } from "drizzle-orm";
import type { Db } from "../db/client.ts";
import type { DbOrTx } from "../modules/audit/record.ts";
import type { AccountColumns } from "./rows.ts";

export interface UpsertOptions {
  /** Leave rows written at or after this time alone (a live event was newer than this page). */
  onlyIfOlderThan?: Date;
}

/** Inserts or replaces the accounts of one platform. Later entries for the same login win. */
export async function upsertAccounts(
  db: DbOrTx,
  platform: { id: string; organizationId: string },
  accounts: readonly AccountColumns[],
  options: UpsertOptions = {},
): Promise<void> {
  if (accounts.length === 0) return;
  const byLogin = new Map<string, AccountColumns>();
  for (const account of accounts) byLogin.set(account.login, account);
  const rows = [...byLogin.values()];
  const column = <K extends keyof AccountColumns>(key: K) => sql.param(rows.map((r) => r[key]));
  const guard = options.onlyIfOlderThan
    ? sql`where trading_accounts.updated_at < ${sql.param(options.onlyIfOlderThan.toISOString())}::timestamptz`
    : sql``;
  await db.execute(sql`
    insert into trading_accounts (
      organization_id, platform_id, login, "group", name, email, phone, country, city, address, comment,
      leverage, currency, balance, credit, equity, margin, free_margin, margin_level, margin_state,
      enabled, read_only, registration, last_access, updated_at)
    select ${sql.param(platform.organizationId)}::uuid, ${sql.param(platform.id)}::uuid, u.*, now()
    from unnest(
      ${column("login")}::text[], ${column("group")}::text[], ${column("name")}::text[], ${column("email")}::text[],
      ${column("phone")}::text[], ${column("country")}::text[], ${column("city")}::text[], ${column("address")}::text[],
      ${column("comment")}::text[], ${column("leverage")}::int[], ${column("currency")}::text[],
      ${column("balance")}::numeric[], ${column("credit")}::numeric[], ${column("equity")}::numeric[],
      ${column("margin")}::numeric[], ${column("freeMargin")}::numeric[], ${column("marginLevel")}::numeric[],
      ${column("marginState")}::text[], ${column("enabled")}::boolean[], ${column("readOnly")}::boolean[],
      ${column("registration")}::timestamptz[], ${column("lastAccess")}::timestamptz[]
    ) as u
    on conflict (platform_id, login) do update set
      "group" = excluded."group", name = excluded.name, email = excluded.email, phone = excluded.phone,
      country = excluded.country, city = excluded.city, address = excluded.address, comment = excluded.comment,
      leverage = excluded.leverage, currency = excluded.currency, balance = excluded.balance,
      credit = excluded.credit, equity = excluded.equity, margin = excluded.margin,
      free_margin = excluded.free_margin, margin_level = excluded.margin_level,
      margin_state = excluded.margin_state, enabled = excluded.enabled, read_only = excluded.read_only,
      registration = excluded.registration, last_access = excluded.last_access, updated_at = excluded.updated_at
    ${guard}`);
}

/** The database's clock, so "written since" comparisons never mix two clocks. */
export async function databaseNow(db: Db): Promise<Date> {
  const result = await db.execute<{ now: string | Date }>(sql`select clock_timestamp() as now`);
  const value = rowsOf<{ now: string | Date }>(result)[0]?.now;
  return value instanceof Date ? value : new Date(String(value));
}

/** After a complete sync: the platform no longer has the accounts the sync did not write. */
export async function removeAccountsNotWrittenSince(db: Db, platformId: string, since: Date): Promise<number> {
  const result = await db.execute(
    sql`delete from trading_accounts where platform_id = ${sql.param(platformId)}::uuid and updated_at < ${sql.param(since.toISOString())}::timestamptz`,
  );
  return affectedRows(result);
}

export async function analyzeAccounts(db: Db): Promise<void> {
  await db.execute(sql`analyze trading_accounts`);
}

/** `execute` answers differ between node-postgres and PGlite; both carry `rows`. */
export function rowsOf<T>(result: unknown): T[] {
  return ((result as { rows?: T[] }).rows ?? []) as T[];
}

function affectedRows(result: unknown): number {
  const r = result as { rowCount?: number | null; affectedRows?: number };
  return r.rowCount ?? r.affectedRows ?? 0;
}
