/**
 * A customer as its page shows it (docs/customers.md, "Customer"): the customer, its linked
 * accounts, and their latest deals from the trade history store.
 */
import type { CustomerDeal, CustomerDetail } from "../../../core/schemas/customers.ts";
import type { Db } from "../../db/client.ts";
import { customerView } from "./customerViews.ts";
import { linkedAccounts } from "./links.ts";
import { recentDealRows } from "./linksRepository.ts";

const RECENT_DEALS = 20;

/** The linked accounts' latest deals, newest first. */
async function recentDeals(db: Db, organizationId: string, customerId: string): Promise<CustomerDeal[]> {
  return (await recentDealRows(db, organizationId, customerId, RECENT_DEALS)).map((r) => ({
    platformId: r.platform_id,
    login: r.login,
    dealId: r.deal_id,
    time: r.time,
    action: r.action,
    entry: r.entry,
    symbol: r.symbol,
    volume: r.volume,
    price: Number(r.price),
    profit: r.profit,
  }));
}

export async function getCustomer(db: Db, organizationId: string, id: string): Promise<CustomerDetail> {
  const customer = await customerView(db, organizationId, id);
  const [accounts, deals] = await Promise.all([linkedAccounts(db, organizationId, id), recentDeals(db, organizationId, id)]);
  return { ...customer, accounts, recentDeals: deals };
}
