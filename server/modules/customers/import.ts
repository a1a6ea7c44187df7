/**
 * The customers' CSV import (docs/customers.md, "Import"). Whatever the file's size, no one
 * organization's import holds up the server: the file is parsed, validated and written in slices
 * with a turn of the event loop between them (docs/security.md, "Limits per organization"); one
 * import runs at a time per organization, on every node (the `customer_imports` row); and the
 * organization's customers stay within TOOLBOX_MAX_CUSTOMERS, counted in the transaction that
 * writes them, so a refused import leaves nothing behind.
 */
import { z } from "zod";
import { CUSTOMER_CSV_COLUMNS, CUSTOMER_IMPORT_MAX_ROWS, CustomerFieldsSchema, splitTags, type ImportReport } from "../../../core/schemas/customers.ts";
import type { Db } from "../../db/client.ts";
import { ConflictError, InvalidRequestError } from "../../errors.ts";
import { lockForQuota, requireCustomersQuota, type Quotas } from "../../quotas.ts";
import { recordAudit, type Actor } from "../audit/record.ts";
import { CsvSyntaxError, parseCsvInSlices } from "./csv.ts";
import {
  beginStaging,
  claimImport,
  customerCount,
  customersByEmail,
  discardAbandoned,
  discardStaged,
  memberEmails,
  publishStaged,
  releaseImport,
  stageRows,
  updateFromImport,
  type ImportUpdate,
} from "./importRepository.ts";
import { Slices } from "./slices.ts";

type Fields = z.output<typeof CustomerFieldsSchema>;
/** A valid row of the file: its line, its customer, and whether its status and KYC cells were empty. */
interface Row {
  line: number;
  fields: Fields & { organizationId: string };
  keepStatus: boolean;
  keepKyc: boolean;
}

/**
 * How long one staging transaction should hold the database. On the embedded database (one
 * connection) every other request waits for at most about this; a fixed 500 rows took 0.7 s a
 * chunk there on a loaded machine. Each chunk's size follows from the previous one's pace, within
 * STAGE_ROWS (at most doubling), so PostgreSQL writes big chunks and a busy PGlite small ones.
 */
const STAGE_TARGET_MS = 50;
const STAGE_ROWS = { first: 200, min: 20, max: 1000 };

/** The next chunk's size: the rows the last one's pace fits in the target. */
function nextChunkRows(rows: number, tookMs: number): number {
  const fits = Math.floor((rows * STAGE_TARGET_MS) / Math.max(tookMs, 1));
  return Math.max(STAGE_ROWS.min, Math.min(STAGE_ROWS.max, 2 * rows, fits));
}

const TAKEN_OVER = "This import ran longer than 10 minutes and another import took its place; nothing of it was imported. Import the file again.";

/** Claims the organization's one import, or refuses (409) while another runs on any node. Returns the release. */
async function claim(db: Db, actor: Actor): Promise<() => Promise<void>> {
  const startedAt = await claimImport(db, actor.organizationId, actor.sub);
  if (!startedAt)
    throw new ConflictError("Another import of customers is running in this organization. Wait until it has finished, then import this file again.");
  return () => releaseImport(db, actor.organizationId, startedAt);
}

/** The import's reading of a cell: an apostrophe the export put before formula-like text goes. */
const unguard = (cell: string) => (/^'[=+\-@]/.test(cell) ? cell.slice(1) : cell).trim();

const ImportRowSchema = CustomerFieldsSchema.omit({ ownerSub: true });

/**
 * Validates every row (by line and field) and writes in one transaction: all rows, only when all
 * are valid (mode "all"), or the valid ones (mode "validOnly"); nothing on a dry run. A row whose
 * e-mail an existing customer has is that customer: skipped, or its columns written over the
 * customer's (`existing: "update"`), in the transaction that publishes the new ones. Refused with
 * 409 while another import of the organization runs, with 422 when the rows would take it past its
 * customers quota (a dry run says so too).
 */
export async function importCustomers(db: Db, actor: Actor, quotas: Quotas, input: ImportInput): Promise<ImportReport> {
  const release = await claim(db, actor);
  try {
    // Holding the claim, any staged import of the organization is one a stopped node left.
    await discardAbandoned(db, actor.organizationId);
    return await runImport(db, actor, quotas, input);
  } finally {
    await release();
  }
}

type ImportInput = { csv: string; mode: "all" | "validOnly"; dryRun: boolean; existing: "skip" | "update" };

async function runImport(db: Db, actor: Actor, quotas: Quotas, input: ImportInput): Promise<ImportReport> {
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
  const members = await memberEmails(db, actor.organizationId);
  const ownerOf = new Map<string, string>();
  for (const m of members) {
    ownerOf.set(m.sub, m.sub);
    if (m.email) ownerOf.set(m.email.toLowerCase(), m.sub);
  }

  const errors: ImportReport["errors"] = [];
  const valid: Row[] = [];
  // The first line of each e-mail in the file: a later row with it is an error, not a second customer.
  const emailLines = new Map<string, number>();
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
      tags: typeof raw.tags === "string" ? splitTags(raw.tags) : undefined,
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
    if (parsed.success && parsed.data.email) {
      const first = emailLines.get(parsed.data.email);
      if (first !== undefined) {
        errors.push({ line: record.line, field: "email", message: `${parsed.data.email} is also on line ${first}: one row per customer` });
        rowValid = false;
      } else emailLines.set(parsed.data.email, record.line);
    }
    if (rowValid && parsed.success)
      valid.push({
        line: record.line,
        fields: { ...parsed.data, ownerSub, organizationId: actor.organizationId },
        keepStatus: raw.status === undefined || raw.status === "",
        keepKyc: raw.kyc === undefined || raw.kyc === "",
      });
  }

  // Rows whose e-mail an existing customer has are that customer: skipped or updated, never a second one.
  const existing = await customersByEmail(db, actor.organizationId, [...new Set(valid.flatMap((r) => (r.fields.email ? [r.fields.email] : [])))], () =>
    slices.next(),
  );
  const creates: Row["fields"][] = [];
  const matches: ImportUpdate[] = [];
  for (const row of valid) {
    const ids = existing.get(row.fields.email) ?? [];
    if (ids.length === 0) creates.push(row.fields);
    else if (ids.length > 1)
      errors.push({ line: row.line, field: "email", message: `${ids.length} customers have the e-mail ${row.fields.email}: edit them by hand` });
    else matches.push(updateOf(ids[0]!, row, columns));
  }
  errors.sort((a, b) => a.line - b.line);

  const report = { rows: data.length, valid: creates.length + matches.length, imported: 0, existing: matches.length, updated: 0, skipped: 0, errors };
  const updates = input.existing === "update" ? matches : [];
  const allowed = input.mode === "validOnly" || errors.length === 0;
  // A file whose every row is skipped writes nothing (and records no import).
  if (!allowed || creates.length + updates.length === 0) return { ...report, skipped: allowed && !input.dryRun ? matches.length : 0 };
  // Refused before writing anything when the rows could not fit; counted again when published.
  requireCustomersQuota(quotas, await customerCount(db, actor.organizationId), creates.length);
  if (input.dryRun) return report;
  const importId = await beginStaging(db, actor.organizationId);
  let updated = 0;
  try {
    for (let i = 0, rows = STAGE_ROWS.first; i < creates.length;) {
      const chunk = creates.slice(i, i + rows);
      const started = performance.now();
      if (!(await stageRows(db, importId, chunk))) throw new ConflictError(TAKEN_OVER);
      i += chunk.length;
      rows = nextChunkRows(chunk.length, performance.now() - started);
      if (slices.due()) await slices.next();
    }
    await db.transaction(async (tx) => {
      // Counted after the lock: a creation or another node's import cannot slip in between.
      await lockForQuota(tx, { organizationId: actor.organizationId });
      requireCustomersQuota(quotas, await customerCount(tx, actor.organizationId), creates.length);
      if (!(await publishStaged(tx, importId))) throw new ConflictError(TAKEN_OVER);
      updated = await updateFromImport(tx, actor.organizationId, updates);
      await recordAudit(tx, actor, {
        action: "customers.imported",
        targetType: "customer",
        targetId: "import",
        after: {
          rows: data.length,
          imported: creates.length + updated,
          created: creates.length,
          updated,
          skipped: matches.length - updates.length,
          mode: input.mode,
          existing: input.existing,
          rejectedLines: [...new Set(errors.map((e) => e.line))],
        },
      });
    });
  } catch (err) {
    // Nothing of a failed import is ever visible; its staged rows go now (or, if this fails too,
    // with the organization's next import).
    await discardStaged(db, importId).catch(() => undefined);
    throw err;
  }
  return { ...report, imported: creates.length + updated, updated, skipped: matches.length - updates.length };
}

/**
 * What an import's row changes in the customer it matched: the file's columns, nothing else. An
 * empty status or KYC cell keeps the customer's (a new customer's would take the default).
 */
function updateOf(id: string, row: Row, columns: readonly string[]): ImportUpdate {
  const has = (column: string) => columns.includes(column);
  const f = row.fields;
  return {
    id,
    kind: f.kind,
    name: f.name,
    phone: has("phone") ? f.phone : null,
    country: has("country") ? f.country : null,
    status: row.keepStatus ? null : f.status,
    kyc: row.keepKyc ? null : f.kyc,
    tags: has("tags") ? f.tags : null,
    ownerSub: f.ownerSub,
    setOwner: has("owner"),
  };
}
