/**
 * One customer, found and shown (docs/customers.md): the row as the API shows it, with its owner's
 * name and linked accounts' number, and as the audit keeps it; another organization's customer,
 * or one of an import not yet published, is "not found".
 */
import type { Customer } from "../../../core/schemas/customers.ts";
import { NotFoundError } from "../../errors.ts";
import type { DbOrTx } from "../../db/client.ts";
import { findCustomer, findListed, type CustomerRow, type ListedRow } from "./repository.ts";

const NOT_FOUND = "This customer does not exist in this organization.";

export function view(row: Pick<ListedRow, "customer" | "ownerName" | "accountCount">): Customer {
  const r = row.customer;
  return {
    id: r.id,
    kind: r.kind,
    name: r.name,
    email: r.email,
    phone: r.phone,
    country: r.country,
    status: r.status,
    kyc: r.kyc,
    tags: r.tags,
    ownerSub: r.ownerSub,
    ownerName: r.ownerSub ? (row.ownerName ?? r.ownerSub) : null,
    accountCount: Number(row.accountCount),
    version: r.version,
    createdAt: r.createdAt.toISOString(),
    updatedAt: r.updatedAt.toISOString(),
  };
}

/** What the audit keeps of a customer: its fields, no bookkeeping. */
export function auditView(r: CustomerRow) {
  const { organizationId: _o, createdAt: _c, updatedAt: _u, importId: _i, ...rest } = r;
  return rest;
}

/** The customer's row (locked for the caller's transaction when `lock`), or 404. */
export async function loadCustomer(db: DbOrTx, organizationId: string, id: string, lock = false): Promise<CustomerRow> {
  const row = await findCustomer(db, organizationId, id, lock);
  if (!row) throw new NotFoundError(NOT_FOUND);
  return row;
}

/** The customer as the API shows it, or 404. */
export async function customerView(db: DbOrTx, organizationId: string, id: string): Promise<Customer> {
  const row = await findListed(db, organizationId, id);
  if (!row) throw new NotFoundError(NOT_FOUND);
  return view(row);
}
