/**
 * The mirror's writes: one multi-row upsert per batch, the rows passed as one JSON document
 * (`json_to_recordset`: one parameter whatever the batch size, so a 1,000-row page is one short
 * statement on PostgreSQL and PGlite alike, and encoding it is one quick JSON.stringify rather
 * than a driver's array encoding of every value). A row is written only when its content
 * changed: a resync of an unchanged platform, or a detail read of an unchanged account, writes
 * nothing (no new row versions, no WAL). See docs/decisions/0035-mirror-writes-only-what-changed.md.
 */
import { sql } from "drizzle-orm";
import { setImmediate as yieldToEventLoop } from "node:timers/promises";
import type { Db, DbOrTx } from "../../../db/client.ts";
import { rowsOf } from "../../../db/rows.ts";
import type { AccountColumns } from "./rows.ts";

/** A value of the mirror's write counter (`trading_accounts_generation`, server/db/tables/accounts.ts). */
export type Generation = number;

/** The columns an upsert compares and replaces. */
const CONTENT_COLUMNS = [
  "group",
  "name",
  "email",
  "phone",
  "country",
  "city",
  "address",
  "comment",
  "leverage",
  "currency",
  "balance",
  "credit",
  "equity",
  "margin",
  "free_margin",
  "margin_level",
  "margin_state",
  "enabled",
  "read_only",
  "registration",
  "last_access",
].map((column) => `"${column}"`);
const REPLACE = sql.raw(`${CONTENT_COLUMNS.map((c) => `${c} = excluded.${c}`).join(", ")}, updated_at = excluded.updated_at`);
const CHANGED = sql.raw(
  `(${CONTENT_COLUMNS.map((c) => `trading_accounts.${c}`).join(", ")}) is distinct from (${CONTENT_COLUMNS.map((c) => `excluded.${c}`).join(", ")})`,
);

export interface UpsertOptions {
  /**
   * The generation taken before these accounts were read from the platform: a row written after
   * it (by a live event, a balance operation) holds newer figures and is left alone.
   */
  readAt?: Generation;
}

/**
 * Inserts the new accounts of one platform and updates those whose content differs; later
 * entries for the same login win. Answers how many rows it wrote.
 */
export async function upsertAccounts(
  db: DbOrTx,
  platform: { id: string; organizationId: string },
  accounts: readonly AccountColumns[],
  options: UpsertOptions = {},
): Promise<number> {
  if (accounts.length === 0) return 0;
  const byLogin = new Map<string, AccountColumns>();
  for (const account of accounts) byLogin.set(account.login, account);
  const rows = JSON.stringify([...byLogin.values()]);
  const newer = options.readAt === undefined ? sql`` : sql`and trading_accounts.generation < ${options.readAt}`;
  // Inserted rows share one new generation (the scalar subquery runs once per statement); updated
  // rows take theirs from the table's trigger. Money travels as decimal strings, never floats.
  const result = await db.execute(sql`
    insert into trading_accounts (
      organization_id, platform_id, login, "group", name, email, phone, country, city, address, comment,
      leverage, currency, balance, credit, equity, margin, free_margin, margin_level, margin_state,
      enabled, read_only, registration, last_access, updated_at, generation)
    select ${sql.param(platform.organizationId)}::uuid, ${sql.param(platform.id)}::uuid,
      u.login, u."group", u.name, u.email, u.phone, u.country, u.city, u.address, u.comment,
      u.leverage, u.currency, u.balance, u.credit, u.equity, u.margin, u."freeMargin", u."marginLevel", u."marginState",
      u.enabled, u."readOnly", u.registration, u."lastAccess", now(), (select nextval('trading_accounts_generation'))
    from json_to_recordset(${sql.param(rows)}::json) as u(
      login text, "group" text, name text, email text, phone text, country text, city text, address text, comment text,
      leverage int, currency text, balance numeric, credit numeric, equity numeric, margin numeric, "freeMargin" numeric,
      "marginLevel" numeric, "marginState" text, enabled boolean, "readOnly" boolean, registration timestamptz, "lastAccess" timestamptz)
    on conflict (platform_id, login) do update set ${REPLACE}
    where ${CHANGED} ${newer}`);
  return affectedRows(result);
}

/** A new value of the write counter: every row written from now on has a greater generation. */
export async function nextGeneration(db: DbOrTx): Promise<Generation> {
  const result = await db.execute<{ generation: string }>(sql`select nextval('trading_accounts_generation')::text as generation`);
  return Number(rowsOf<{ generation: string }>(result)[0]!.generation);
}

const REMOVAL_CHUNK = 1000;

/**
 * After a complete sync: removes the platform's rows that the platform did not list and nobody
 * wrote since the sync began (`writtenBefore`; an account created meanwhile stays). The mirror's
 * logins are walked in chunks, compared with the listed set, and the missing ones deleted by
 * name, so an unchanged platform costs reads only, and no step holds the event loop for long.
 */
export async function removeAccountsNotListed(db: Db, platformId: string, sync: { writtenBefore: Generation; listed: ReadonlySet<string> }): Promise<number> {
  let removed = 0;
  let after: string | null = null;
  for (;;) {
    const result: unknown = await db.execute(sql`
      select login from trading_accounts
      where platform_id = ${platformId}::uuid and generation < ${sync.writtenBefore}
        ${after === null ? sql`` : sql`and login > ${after}`}
      order by login limit ${REMOVAL_CHUNK}`);
    const logins: string[] = rowsOf<{ login: string }>(result).map((r) => r.login);
    const gone = logins.filter((login) => !sync.listed.has(login));
    if (gone.length > 0) {
      const deleted = await db.execute(sql`
        delete from trading_accounts
        where platform_id = ${platformId}::uuid and login = any(${sql.param(gone)}::text[]) and generation < ${sync.writtenBefore}`);
      removed += affectedRows(deleted);
    }
    if (logins.length < REMOVAL_CHUNK) return removed;
    after = logins[logins.length - 1]!;
    await yieldToEventLoop();
  }
}

/**
 * After a large load: statistics for the planner (without them the list's queries pick poor
 * plans, ten times slower) and the trigram indexes' pending entries merged (until then a search
 * reads them all). A small sample (3,000 rows) is enough to choose the right indexes and keeps
 * this step short on PGlite, where it runs on the server's thread; PostgreSQL's autovacuum
 * refines the statistics later.
 */
export async function analyzeAccounts(db: Db): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.execute(sql`set local default_statistics_target = 10`);
    await tx.execute(sql`analyze trading_accounts`);
  });
  await db.execute(sql`select gin_clean_pending_list('trading_accounts_name_trgm_idx'), gin_clean_pending_list('trading_accounts_email_trgm_idx')`);
}

function affectedRows(result: unknown): number {
  const r = result as { rowCount?: number | null; affectedRows?: number };
  return r.rowCount ?? r.affectedRows ?? 0;
}
