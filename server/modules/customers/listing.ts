/**
 * The customers list at scale (docs/customers.md, "List"): one page in the view's order, and its
 * total from a count shared for a few seconds by everyone asking the same question.
 */
import type { Customer, ListCustomersQuery } from "../../../core/schemas/customers.ts";
import type { Db } from "../../db/client.ts";
import { ShortLivedCache } from "../accounts/accountListRepository.ts";
import { jsonAnswer } from "../accounts/jsonAnswer.ts";
import { pageAsJson } from "./listPageRepository.ts";
import { countWhere, where, type Filters } from "./repository.ts";

/** Counts by organization and filters, one at a time however many ask, answering for a few seconds (accountListRepository.ts). */
const counts = new WeakMap<Db, ShortLivedCache<number>>();

function countOf(db: Db, organizationId: string, q: Filters): Promise<number> {
  let cache = counts.get(db);
  if (!cache) counts.set(db, (cache = new ShortLivedCache<number>()));
  const key = JSON.stringify([organizationId, q.q, q.status, q.kyc, q.tag, q.country, q.owner]);
  return cache.get(key, () => countWhere(db, where(organizationId, q)));
}

export async function listCustomers(db: Db, organizationId: string, q: ListCustomersQuery): Promise<{ items: Customer[]; total: number }> {
  const rows = await pageAsJson(db, organizationId, q);
  const seen = q.offset + rows.length;
  // A short page ends the list: the total is exact without counting. Otherwise the count (maybe
  // a few seconds old) is never less than what this page shows.
  const total = rows.length < q.limit && (rows.length > 0 || q.offset === 0) ? seen : Math.max(await countOf(db, organizationId, q), seen);
  // The rows are the database's JSON text of the API's customers (listPageRepository.ts).
  return jsonAnswer(`{"items":[${rows.join(",")}],"total":${total}}`);
}
