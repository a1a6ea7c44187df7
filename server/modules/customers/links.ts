/**
 * A customer's trading accounts (docs/customers.md, "Accounts"): the linked accounts with their
 * balance and equity, and linking and unlinking one (an account belongs to one customer at most),
 * each in one transaction with its audit row.
 */
import type { LinkedAccount } from "../../../core/schemas/customers.ts";
import type { Db, DbOrTx } from "../../db/client.ts";
import { ConflictError, NotFoundError } from "../../errors.ts";
import { recordAudit, type Actor } from "../audit/record.ts";
import { loadCustomer } from "./customerViews.ts";
import { accountExists, deleteLink, insertLink, linkedAccountRows, linkHolder, type AccountRef } from "./linksRepository.ts";

export async function linkedAccounts(db: DbOrTx, organizationId: string, customerId: string): Promise<LinkedAccount[]> {
  const rows = await linkedAccountRows(db, organizationId, customerId);
  return rows.map((r) => ({ ...r, linkedAt: r.linkedAt.toISOString() }));
}

const ref = (a: AccountRef) => ({ platformId: a.platformId, login: a.login });

export async function linkAccount(db: Db, actor: Actor, customerId: string, account: AccountRef): Promise<LinkedAccount[]> {
  return db.transaction(async (tx) => {
    const customer = await loadCustomer(tx, actor.organizationId, customerId, true);
    if (!(await accountExists(tx, actor.organizationId, account)))
      throw new NotFoundError(`Account ${account.login} does not exist on that platform of this organization.`);
    const before = (await linkedAccounts(tx, actor.organizationId, customerId)).map(ref);
    if (!(await insertLink(tx, actor.organizationId, customerId, account))) {
      const holder = await linkHolder(tx, account);
      if (holder?.id === customerId) throw new ConflictError(`Account ${account.login} is already linked to this customer.`);
      throw new ConflictError(`Account ${account.login} is already linked to ${holder?.name ?? "another customer"}. Unlink it there first.`);
    }
    const after = await linkedAccounts(tx, actor.organizationId, customerId);
    await recordAudit(tx, actor, {
      action: "customer.accountLinked",
      targetType: "customer",
      targetId: customerId,
      before: { customer: customer.name, accounts: before },
      after: { customer: customer.name, accounts: after.map(ref) },
    });
    return after;
  });
}

export async function unlinkAccount(db: Db, actor: Actor, customerId: string, account: AccountRef): Promise<void> {
  await db.transaction(async (tx) => {
    await loadCustomer(tx, actor.organizationId, customerId, true);
    const before = (await linkedAccounts(tx, actor.organizationId, customerId)).map(ref);
    if (!(await deleteLink(tx, customerId, account))) throw new NotFoundError(`Account ${account.login} is not linked to this customer.`);
    await recordAudit(tx, actor, {
      action: "customer.accountUnlinked",
      targetType: "customer",
      targetId: customerId,
      before: { accounts: before },
      after: { accounts: before.filter((a) => !(a.platformId === account.platformId && a.login === account.login)) },
    });
  });
}
