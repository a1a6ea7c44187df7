/**
 * The preview of a copy link (POST /api/tradesCopier/preview, docs/trades-copier.md "Preview"):
 * the source's last days from the trade history store, run through the copy rules for each
 * follower with today's figures read from the platforms (symbols, equity and balance, quotes for
 * the risk-percent conversion). Reads only; nothing is sent to any platform.
 */
import { previewFollower, sourceActionsOf, type PreviewContext } from "../../../core/copier/index.ts";
import type { AccountRef, CopyLinkBody } from "../../../core/schemas/copier.ts";
import type { CopyLinkPreview } from "../../../core/schemas/copierPreview.ts";
import { conversionRate, type Account, type TradeSymbol } from "../../../core/trading/index.ts";
import type { TradePlatformConnector } from "../../connectors/connector.ts";
import type { Db } from "../../db/client.ts";
import { viaConnector } from "../../errors.ts";
import { sourceDeals, sourceOrders } from "./previewRepository.ts";

export const PREVIEW_DAYS = 7;
/** Deals and orders read at most: past it the preview covers the earliest ones and says it is cut. */
export const PREVIEW_MAX_RECORDS = 20_000;
const DAY_MS = 86_400_000;

/** What the preview uses of the platforms runtime (app.platforms satisfies it). */
export interface PreviewPlatforms {
  /** NotFoundError for another organization's platform, ConflictError when disabled, UnavailableError when not connected. */
  connectorFor(organizationId: string, platformId: string): Promise<TradePlatformConnector>;
}

interface AccountView {
  account: Account;
  symbols: ReadonlyMap<string, TradeSymbol>;
  connector: TradePlatformConnector;
}

/** An account's figures and its server's symbols; a login the platform does not know is a 404. */
async function accountView(
  platforms: PreviewPlatforms,
  organizationId: string,
  ref: AccountRef,
  symbolsOf: Map<string, Promise<TradeSymbol[]>>,
): Promise<AccountView> {
  const connector = await platforms.connectorFor(organizationId, ref.platformId);
  const account = await viaConnector(() => connector.getAccount(ref.login));
  let symbols = symbolsOf.get(ref.platformId);
  if (!symbols) {
    symbols = viaConnector(() => connector.listSymbols());
    symbolsOf.set(ref.platformId, symbols);
  }
  return { account, connector, symbols: new Map((await symbols).map((s) => [s.name, s])) };
}

/** Profit currency → the account's currency from the follower server's mid prices, read once and only if asked. */
function ratesOf(view: AccountView): () => Promise<PreviewContext["profitRateOf"]> {
  return async () => {
    const quotes = await viaConnector(() => view.connector.getQuotes());
    const mids = new Map(quotes.map((q) => [q.symbol, (q.bid + q.ask) / 2]));
    return (symbol) => conversionRate(symbol.profitCurrency, view.account.currency, (name) => mids.get(name));
  };
}

export async function previewLink(db: Db, platforms: PreviewPlatforms, organizationId: string, link: CopyLinkBody, now = Date.now()): Promise<CopyLinkPreview> {
  const to = new Date(now);
  const from = new Date(now - PREVIEW_DAYS * DAY_MS);
  const symbolsOf = new Map<string, Promise<TradeSymbol[]>>();
  const source = await accountView(platforms, organizationId, link.source, symbolsOf);
  const followers = await Promise.all(link.followers.map((f) => accountView(platforms, organizationId, f.account, symbolsOf)));
  const [deals, orders] = await Promise.all([
    sourceDeals(db, organizationId, link.source.platformId, link.source.login, from, to, PREVIEW_MAX_RECORDS),
    sourceOrders(db, organizationId, link.source.platformId, link.source.login, from, to, PREVIEW_MAX_RECORDS),
  ]);
  const actions = sourceActionsOf({ login: link.source.login, deals, orders }, from.getTime(), to.getTime());
  const previews = [];
  for (const [i, settings] of link.followers.entries()) {
    const view = followers[i]!;
    const needsRates = settings.volume.mode === "riskPercent";
    const profitRateOf: PreviewContext["profitRateOf"] = needsRates ? await ratesOf(view)() : () => undefined;
    const signals = previewFollower(actions, settings, {
      linkId: "preview",
      linkEnabled: link.enabled,
      followerSymbols: view.symbols,
      sourceSymbols: source.symbols,
      follower: { balance: view.account.balance, equity: view.account.equity },
      source: { balance: source.account.balance, equity: source.account.equity },
      profitRateOf,
    });
    previews.push({
      account: settings.account,
      copies: signals.filter((s) => s.outcome === "copy").length,
      skipped: signals.filter((s) => s.outcome === "skip").length,
      signals,
    });
  }
  return {
    from: from.toISOString(),
    to: to.toISOString(),
    sourceSignals: actions.length,
    truncated: deals.length >= PREVIEW_MAX_RECORDS || orders.length >= PREVIEW_MAX_RECORDS,
    followers: previews,
  };
}
