/**
 * The import's SQL (docs/customers.md, "Import"): the organization's one-import claim, and the
 * staged write — rows tagged with the import's id, written in short transactions, invisible to
 * every read until one short transaction publishes them all, or removed when the import fails or
 * its node stopped.
 */
import { and, eq, inArray, sql } from "drizzle-orm";
import type { Db, DbOrTx } from "../../db/client.ts";
import { customerImports, customerImportStaging, customers, memberships, users } from "../../db/schema.ts";
import { rowsOf } from "../../db/rows.ts";
import { visible } from "./visibilityRepository.ts";

/**
 * An import's claim older than this is a node that stopped in the middle of one (the longest
 * import, 100,000 rows, takes well under a minute): the next import takes the claim over.
 */
const STALE_CLAIM = "10 minutes";

/** Staged rows removed per statement when an import is discarded (each its own short statement). */
const DISCARD_ROWS = 2000;

/** The customers an organization has, staged imports left out (for its quota). */
export async function customerCount(db: DbOrTx, organizationId: string): Promise<number> {
  const [row] = await db
    .select({ n: sql<number>`count(*)::int` })
    .from(customers)
    .where(and(eq(customers.organizationId, organizationId), visible));
  return Number(row?.n ?? 0);
}

/**
 * Claims the organization's one import: the claim's time to the microsecond, as stored (what
 * releases this claim only), or null while another import holds it on any node.
 */
export async function claimImport(db: Db, organizationId: string, sub: string): Promise<string | null> {
  const [claim] = await db
    .insert(customerImports)
    .values({ organizationId, startedBy: sub })
    .onConflictDoUpdate({
      target: customerImports.organizationId,
      set: { startedBy: sub, startedAt: sql`now()` },
      setWhere: sql`${customerImports.startedAt} < now() - ${STALE_CLAIM}::interval`,
    })
    .returning({ startedAt: sql<string>`${customerImports.startedAt}::text` });
  return claim?.startedAt ?? null;
}

/** Drops this claim only (never one another import took over since). */
export async function releaseImport(db: Db, organizationId: string, startedAt: string): Promise<void> {
  await db
    .delete(customerImports)
    .where(and(eq(customerImports.organizationId, organizationId), sql`${customerImports.startedAt} = ${startedAt}::timestamptz`));
}

/** The organization's members, by sub and e-mail (an import names owners either way). */
export async function memberEmails(db: Db, organizationId: string): Promise<{ sub: string; email: string | null }[]> {
  return db
    .select({ sub: memberships.userSub, email: users.email })
    .from(memberships)
    .innerJoin(users, eq(users.sub, memberships.userSub))
    .where(eq(memberships.organizationId, organizationId));
}

/** Opens a staged import: its id, which tags its rows. */
export async function beginStaging(db: Db, organizationId: string): Promise<string> {
  const [row] = await db.insert(customerImportStaging).values({ organizationId }).returning({ id: customerImportStaging.id });
  if (!row) throw new Error("The staged import was not created.");
  return row.id;
}

type NewCustomer = Omit<typeof customers.$inferInsert, "importId" | "id" | "version" | "createdAt" | "updatedAt">;

/**
 * Writes one chunk of the import's rows, invisible, in its own short transaction. False when the
 * import is no longer staged (a later import took over a claim this one held too long and removed
 * it): nothing is written then. The key-share lock keeps the staging row until the chunk commits,
 * so a removal waits for it and then removes its rows too.
 */
export async function stageRows(db: Db, importId: string, rows: NewCustomer[]): Promise<boolean> {
  return db.transaction(async (tx) => {
    const [staged] = await tx
      .select({ id: customerImportStaging.id })
      .from(customerImportStaging)
      .where(eq(customerImportStaging.id, importId))
      .for("key share");
    if (!staged) return false;
    await tx.insert(customers).values(rows.map((r) => ({ ...r, importId })));
    return true;
  });
}

/** Makes the import's rows visible, all at once (in the caller's transaction). False when it is no longer staged. */
export async function publishStaged(tx: DbOrTx, importId: string): Promise<boolean> {
  const removed = await tx.delete(customerImportStaging).where(eq(customerImportStaging.id, importId)).returning({ id: customerImportStaging.id });
  return removed.length > 0;
}

/**
 * Removes a staged import's rows, a chunk per statement (the database serves others between
 * them), then the import's staging row with any row a chunk still wrote meanwhile. Rows of an
 * import already published are never touched: each statement deletes only while it is staged.
 */
export async function discardStaged(db: Db, importId: string): Promise<void> {
  const stillStaged = sql`exists (select 1 from ${customerImportStaging} where ${customerImportStaging.id} = ${importId}::uuid)`;
  for (;;) {
    const removed = await db
      .delete(customers)
      .where(
        sql`${customers.id} in (select ${customers.id} from ${customers} where ${customers.importId} = ${importId}::uuid and ${stillStaged} limit ${DISCARD_ROWS})`,
      )
      .returning({ id: customers.id });
    if (removed.length < DISCARD_ROWS) break;
  }
  await db.transaction(async (tx) => {
    if (await publishStaged(tx, importId)) await tx.delete(customers).where(eq(customers.importId, importId));
  });
}

/**
 * Removes the staged imports of an organization whose import holds its claim: any staged import
 * there is one a stopped node left (the caller's own is not yet begun).
 */
export async function discardAbandoned(db: Db, organizationId: string): Promise<number> {
  const left = await db.select({ id: customerImportStaging.id }).from(customerImportStaging).where(eq(customerImportStaging.organizationId, organizationId));
  for (const { id } of left) await discardStaged(db, id);
  return left.length;
}

/** E-mails looked up, and existing customers updated, per statement. */
const MATCH_ROWS = 1000;

/**
 * The organization's customers (staged imports left out) having these e-mails, stored in lower
 * case: their ids by e-mail (several when more than one customer has it). Read by the
 * (organization, lower(email)) index, `MATCH_ROWS` e-mails per statement.
 */
export async function customersByEmail(
  db: Db,
  organizationId: string,
  emails: readonly string[],
  between: () => Promise<void>,
): Promise<Map<string, string[]>> {
  const found = new Map<string, string[]>();
  for (let i = 0; i < emails.length; i += MATCH_ROWS) {
    const chunk = emails.slice(i, i + MATCH_ROWS);
    const rows = await db
      .select({ id: customers.id, email: customers.email })
      .from(customers)
      .where(and(eq(customers.organizationId, organizationId), inArray(sql`lower(${customers.email})`, chunk), visible));
    for (const r of rows) found.set(r.email, [...(found.get(r.email) ?? []), r.id]);
    await between();
  }
  return found;
}

/** An existing customer's new values from an import's row; null keeps the customer's own. */
export interface ImportUpdate {
  id: string;
  kind: string;
  name: string;
  phone: string | null;
  country: string | null;
  status: string | null;
  kyc: string | null;
  tags: string[] | null;
  ownerSub: string | null;
  /** False keeps the owner (the file has no owner column); true sets `ownerSub`, null for nobody. */
  setOwner: boolean;
}

/**
 * Updates existing customers from an import's rows (in the caller's transaction, the one that
 * publishes the import), `MATCH_ROWS` per statement: each changed customer's version goes up by
 * one. Returns how many were updated (one deleted since it was matched is not).
 */
export async function updateFromImport(tx: DbOrTx, organizationId: string, rows: readonly ImportUpdate[]): Promise<number> {
  let updated = 0;
  for (let i = 0; i < rows.length; i += MATCH_ROWS) {
    const chunk = JSON.stringify(rows.slice(i, i + MATCH_ROWS));
    const result = await tx.execute(sql`
      update customers c set
        kind = v.kind,
        name = v.name,
        phone = coalesce(v.phone, c.phone),
        country = coalesce(v.country, c.country),
        status = coalesce(v.status, c.status),
        kyc = coalesce(v.kyc, c.kyc),
        tags = case when v.tags is null then c.tags else array(select jsonb_array_elements_text(v.tags)) end,
        owner_sub = case when v."setOwner" then v."ownerSub" else c.owner_sub end,
        version = c.version + 1,
        updated_at = now()
      from jsonb_to_recordset(${chunk}::jsonb) as v(id uuid, kind text, name text, phone text, country text, status text, kyc text, tags jsonb, "ownerSub" text, "setOwner" boolean)
      where c.id = v.id and c.organization_id = ${organizationId}::uuid
      returning c.id`);
    updated += rowsOf<{ id: string }>(result).length;
  }
  return updated;
}
