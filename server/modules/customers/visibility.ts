/**
 * Which customers exist for reads: not the rows of an import still staged (written in short
 * transactions, published all at once; docs/customers.md, "Import"). Every read of the customers
 * table — list, count, export, one customer, links, notes, the quota — filters with `visible`.
 * A row created one by one has no import (null never matches, so it is visible).
 */
import { sql } from "drizzle-orm";
import { customerImportStaging, customers } from "../../db/schema.ts";

export const visible = sql`not exists (select 1 from ${customerImportStaging} where ${customerImportStaging.id} = ${customers.importId})`;
