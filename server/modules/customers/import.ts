/**
 * The customers' CSV import (docs/customers.md, "Import"). Whatever the file's size, no one
 * organization's import holds up the server: the file is parsed, validated and written in slices
 * with a turn of the event loop between them (docs/security.md, "Limits per organization"); one
 * import runs at a time per organization, on every node (the `customer_imports` row); and the
 * organization's customers stay within TOOLBOX_MAX_CUSTOMERS, counted in the transaction that
 * writes them, so a refused import leaves nothing behind.
 */
import { and, eq, sql } from "drizzle-orm";
import { z } from "zod";
import { CUSTOMER_CSV_COLUMNS, CUSTOMER_IMPORT_MAX_ROWS, CustomerFieldsSchema, type ImportReport } from "../../../core/schemas/customers.ts";
import type { Db } from "../../db/client.ts";
import { customerImports, customers, memberships, users } from "../../db/schema.ts";
import { ConflictError, InvalidRequestError } from "../../errors.ts";
import { lockForQuota, requireCustomersQuota, type Quotas } from "../../quotas.ts";
import { recordAudit, type Actor, type DbOrTx } from "../audit/record.ts";
import { CsvSyntaxError, parseCsvInSlices } from "./csv.ts";
import { Slices } from "./slices.ts";

type Fields = z.output<typeof CustomerFieldsSchema>;

/** Rows inserted by one statement (a few milliseconds of building it). */
const INSERT_ROWS = 500;

/**
 * An import's claim older than this is a node that stopped in the middle of one (the longest
 * import, 100,000 rows, takes well under a minute): the next import takes the claim over.
 */
const STALE_CLAIM = "10 minutes";

/** The customers an organization has (for its quota). */
export async function customerCount(db: DbOrTx, organizationId: string): Promise<number> {
  const [row] = await db
    .select({ n: sql<number>`count(*)::int` })
    .from(customers)
    .where(eq(customers.organizationId, organizationId));
  return Number(row?.n ?? 0);
}

/**
 * Claims the organization's one import, or refuses (409) while another runs on any node. Returns
 * the release, which drops this claim only (never one another import took over since).
 */
async function claimImport(db: Db, actor: Actor): Promise<() => Promise<void>> {
  const [claim] = await db
    .insert(customerImports)
    .values({ organizationId: actor.organizationId, startedBy: actor.sub })
    .onConflictDoUpdate({
      target: customerImports.organizationId,
      set: { startedBy: actor.sub, startedAt: sql`now()` },
      setWhere: sql`${customerImports.startedAt} < now() - ${STALE_CLAIM}::interval`,
    })
    .returning({ startedAt: sql<string>`${customerImports.startedAt}::text` }); // to the microsecond, as stored
  if (!claim) throw new ConflictError("Another import of customers is running in this organization. Wait until it has finished, then import this file again.");
  return async () => {
    await db
      .delete(customerImports)
      .where(and(eq(customerImports.organizationId, actor.organizationId), sql`${customerImports.startedAt} = ${claim.startedAt}::timestamptz`));
  };
}

/** The import's reading of a cell: an apostrophe the export put before formula-like text goes. */
const unguard = (cell: string) => (/^'[=+\-@]/.test(cell) ? cell.slice(1) : cell).trim();

const ImportRowSchema = CustomerFieldsSchema.omit({ ownerSub: true });

/**
 * Validates every row (by line and field) and writes in one transaction: all rows, only when all
 * are valid (mode "all"), or the valid ones (mode "validOnly"); nothing on a dry run. Refused with
 * 409 while another import of the organization runs, with 422 when the rows would take it past its
 * customers quota (a dry run says so too).
 */
export async function importCustomers(
  db: Db,
  actor: Actor,
  quotas: Quotas,
  input: { csv: string; mode: "all" | "validOnly"; dryRun: boolean },
): Promise<ImportReport> {
  const release = await claimImport(db, actor);
  try {
    return await runImport(db, actor, quotas, input);
  } finally {
    await release();
  }
}

async function runImport(db: Db, actor: Actor, quotas: Quotas, input: { csv: string; mode: "all" | "validOnly"; dryRun: boolean }): Promise<ImportReport> {
  let records;
  try {
    records = await parseCsvInSlices(input.csv);
  } catch (err) {
    if (err instanceof CsvSyntaxError) throw new InvalidRequestError(err.message);
    throw err;
  }
  const [header, ...data] = records;
  if (!header) throw new InvalidRequestError("The file is empty.");
  const columns = header.fields.map((h) => h.trim().toLowerCase());
  const unknown = columns.filter((h) => !(CUSTOMER_CSV_COLUMNS as readonly string[]).includes(h));
  if (unknown.length > 0)
    throw new InvalidRequestError(`Line 1: unknown column ${unknown.map((u) => `"${u}"`).join(", ")}. The columns are: ${CUSTOMER_CSV_COLUMNS.join(", ")}.`);
  for (const required of ["kind", "name"]) if (!columns.includes(required)) throw new InvalidRequestError(`Line 1: the column "${required}" is required.`);
  if (data.length > CUSTOMER_IMPORT_MAX_ROWS)
    throw new InvalidRequestError(`The file has ${data.length} rows; at most ${CUSTOMER_IMPORT_MAX_ROWS} are imported at once.`);

  // Owners are named by e-mail (as the export writes them) or by sub.
  const members = await db
    .select({ sub: memberships.userSub, email: users.email })
    .from(memberships)
    .innerJoin(users, eq(users.sub, memberships.userSub))
    .where(eq(memberships.organizationId, actor.organizationId));
  const ownerOf = new Map<string, string>();
  for (const m of members) {
    ownerOf.set(m.sub, m.sub);
    if (m.email) ownerOf.set(m.email.toLowerCase(), m.sub);
  }

  const errors: ImportReport["errors"] = [];
  const valid: (Fields & { organizationId: string })[] = [];
  const slices = new Slices();
  for (const record of data) {
    if (slices.due()) await slices.next();
    if (record.fields.length !== columns.length) {
      errors.push({ line: record.line, field: "", message: `Line ${record.line} has ${record.fields.length} fields; the header has ${columns.length}.` });
      continue;
    }
    const raw: Record<string, unknown> = {};
    columns.forEach((col, i) => (raw[col] = unguard(record.fields[i]!)));
    const candidate = {
      ...raw,
      tags:
        typeof raw.tags === "string"
          ? raw.tags
              .split(";")
              .map((t) => t.trim())
              .filter(Boolean)
          : undefined,
      status: raw.status === "" ? undefined : raw.status,
      kyc: raw.kyc === "" ? undefined : raw.kyc,
    };
    const parsed = ImportRowSchema.safeParse(candidate);
    let rowValid = parsed.success;
    if (!parsed.success)
      for (const issue of parsed.error.issues) errors.push({ line: record.line, field: String(issue.path[0] ?? ""), message: issue.message });
    let ownerSub: string | null = null;
    const owner = typeof raw.owner === "string" ? raw.owner : "";
    if (owner) {
      ownerSub = ownerOf.get(owner.toLowerCase()) ?? ownerOf.get(owner) ?? null;
      if (!ownerSub) {
        errors.push({ line: record.line, field: "owner", message: `${owner} is not a member of this organization` });
        rowValid = false;
      }
    }
    if (rowValid && parsed.success) valid.push({ ...parsed.data, ownerSub, organizationId: actor.organizationId });
  }

  const report = { rows: data.length, valid: valid.length, imported: 0, errors };
  const write = valid.length > 0 && (input.mode === "validOnly" || errors.length === 0);
  if (!write) return report;
  if (input.dryRun) {
    requireCustomersQuota(quotas, await customerCount(db, actor.organizationId), valid.length);
    return report;
  }
  await db.transaction(async (tx) => {
    // Counted after the lock: a creation or another node's import cannot slip in between.
    await lockForQuota(tx, { organizationId: actor.organizationId });
    requireCustomersQuota(quotas, await customerCount(tx, actor.organizationId), valid.length);
    for (let i = 0; i < valid.length; i += INSERT_ROWS) {
      await tx.insert(customers).values(valid.slice(i, i + INSERT_ROWS));
      if (slices.due()) await slices.next();
    }
    await recordAudit(tx, actor, {
      action: "customers.imported",
      targetType: "customer",
      targetId: "import",
      after: { rows: data.length, imported: valid.length, mode: input.mode, rejectedLines: [...new Set(errors.map((e) => e.line))] },
    });
  });
  return { ...report, imported: valid.length };
}
