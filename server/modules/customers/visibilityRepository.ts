/**
 * Which customers exist for reads: not the rows of an import still staged (written in short
 * transactions, published all at once; docs/customers.md, "Import"). Every read of the customers
 * table — list, count, export, one customer, links, notes, the quota — filters with `visible`.
 *
 * A row created one by one has no import and is visible at once. The staged imports' ids are read
 * once per query (an init plan over a table of a few rows), and the check stays a filter on each
 * row: an anti-join instead made PostgreSQL sort all 100,000 customers for a page that the sort's
 * index answers in order (the middle page took 240 ms instead of 36).
 */
import { sql } from "drizzle-orm";
import { customerImportStaging, customers } from "../../db/schema.ts";

export const visible = sql`(${customers.importId} is null or ${customers.importId} <> all (array(select ${customerImportStaging.id} from ${customerImportStaging})))`;
