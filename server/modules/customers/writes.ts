/**
 * A customer's creation, edit and deletion (docs/customers.md), each in one transaction with its
 * audit row: the customers quota on creation, optimistic concurrency on edit (the version read),
 * a member as owner; deleting a customer unlinks its accounts, never deletes them.
 */
import type { z } from "zod";
import type { Customer, CustomerFieldsSchema } from "../../../core/schemas/customers.ts";
import type { Db, DbOrTx } from "../../db/client.ts";
import { ConflictError, InvalidRequestError } from "../../errors.ts";
import { lockForQuota, requireCustomersQuota, type Quotas } from "../../quotas.ts";
import { recordAudit, type Actor } from "../audit/record.ts";
import { auditView, customerView, loadCustomer } from "./customerViews.ts";
import { customerCount } from "./importRepository.ts";
import { deleteCustomerRow, insertCustomer, isMember, updateCustomerRow } from "./repository.ts";

type Fields = z.output<typeof CustomerFieldsSchema>;
type Patch = Partial<Fields> & { version: number };

async function checkOwner(db: DbOrTx, organizationId: string, ownerSub: string | null | undefined) {
  if (!ownerSub) return;
  if (!(await isMember(db, organizationId, ownerSub))) throw new InvalidRequestError("owner must be a member of this organization.");
}

export async function createCustomer(db: Db, actor: Actor, fields: Fields, quotas: Quotas): Promise<Customer> {
  return db.transaction(async (tx) => {
    await checkOwner(tx, actor.organizationId, fields.ownerSub);
    await lockForQuota(tx, { organizationId: actor.organizationId });
    requireCustomersQuota(quotas, await customerCount(tx, actor.organizationId), 1);
    const row = await insertCustomer(tx, actor.organizationId, fields);
    await recordAudit(tx, actor, { action: "customer.created", targetType: "customer", targetId: row.id, after: auditView(row) });
    return customerView(tx, actor.organizationId, row.id);
  });
}

export async function updateCustomer(db: Db, actor: Actor, id: string, patch: Patch): Promise<Customer> {
  return db.transaction(async (tx) => {
    const before = await loadCustomer(tx, actor.organizationId, id, true);
    if (before.version !== patch.version)
      throw new ConflictError(
        `Someone else changed this customer since you opened it (version ${before.version}, yours ${patch.version}). Reload it and make your change again.`,
      );
    const { version: _v, ...fields } = patch;
    if (fields.ownerSub !== undefined && fields.ownerSub !== before.ownerSub) await checkOwner(tx, actor.organizationId, fields.ownerSub);
    const after = await updateCustomerRow(tx, id, fields, before.version + 1);
    await recordAudit(tx, actor, { action: "customer.updated", targetType: "customer", targetId: id, before: auditView(before), after: auditView(after) });
    return customerView(tx, actor.organizationId, id);
  });
}

/** Deletes the customer, its notes and its links; the accounts stay, unlinked. */
export async function deleteCustomer(db: Db, actor: Actor, id: string): Promise<void> {
  await db.transaction(async (tx) => {
    const before = await loadCustomer(tx, actor.organizationId, id, true);
    const links = await deleteCustomerRow(tx, id);
    await recordAudit(tx, actor, {
      action: "customer.deleted",
      targetType: "customer",
      targetId: id,
      before: { ...auditView(before), accounts: links },
    });
  });
}
