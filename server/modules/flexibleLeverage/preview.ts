/**
 * The preview of rules as drafted (docs/flexible-leverage.md "API"): every account of the platform
 * through the engine's `preview`, with the same clock the server's plugin reads, and the counts; the
 * rows searched by login and paged.
 *
 * What it reads: the accounts (login, group, currency, equity, leverage) from Toolbox's accounts
 * mirror (`trading_accounts`), the open positions, groups, symbols and quotes from the server now.
 * What it cannot know, said in `notes`: the mirror's equity of an account holding positions is
 * as of its last update (equity moves with prices between them); an account opened since the
 * mirror last read the server is not in it; every open position counts as opened before the rules
 * change (a save now makes them so).
 */
import { compileRules, preview, type FlexibleLeverageSettings, type LeverageAccount, type LeveragePosition } from "../../../core/flexibleLeverage/index.ts";
import type { FlexibleLeveragePreview } from "../../../core/schemas/flexibleLeverage.ts";
import { moneyFromDecimal, volumeToLots, type Quote, type TradeSymbol } from "../../../core/trading/index.ts";
import { viaConnector } from "../../errors.ts";
import { mirroredAccounts } from "./repository.ts";
import { loadPlugin, serverNames, symbolKey, warningsFor, type FlexibleLeverageDeps } from "./service.ts";

export interface PreviewRequest {
  settings: FlexibleLeverageSettings;
  whatIf?: { serverTime?: string; equity?: number };
  login?: string;
  onlyChanged?: boolean;
  offset: number;
  limit: number;
}

const wallOf = (text: string) => Date.parse(`${text}:00Z`);

/** Currency conversion with the server's quotes (mid), as directly quoted pairs; undefined when none converts. */
function rates(quotes: readonly Quote[]) {
  const mid = new Map(quotes.map((q) => [q.symbol, (q.bid + q.ask) / 2]));
  return (from: string, to: string): number | undefined => {
    if (from === to) return 1;
    const direct = mid.get(`${from}${to}`);
    if (direct) return direct;
    const inverse = mid.get(`${to}${from}`);
    return inverse ? 1 / inverse : undefined;
  };
}

export async function previewSettings(
  deps: FlexibleLeverageDeps,
  organizationId: string,
  platformId: string,
  pluginId: string,
  request: PreviewRequest,
): Promise<FlexibleLeveragePreview> {
  const { connector, clock } = await loadPlugin(deps, organizationId, platformId, pluginId);
  const needsNotional = request.settings.rules.some((r) => r.active && r.mode === "exposureNotional");
  const [rows, positions, names, quotes] = await Promise.all([
    mirroredAccounts(deps.db, organizationId, platformId),
    viaConnector(() => connector.openPositions()),
    serverNames(connector),
    needsNotional ? viaConnector(() => connector.getQuotes()) : Promise.resolve([] as Quote[]),
  ]);
  const notes = [
    "Equity is Toolbox's copy of the accounts: for an account holding positions it is as of its last update, and moves with prices in between.",
    "Open positions are the server's now; each counts as opened before the rules change, as a save now makes it.",
  ];
  if (rows.length === 0) notes.push("Toolbox has not read this server's accounts yet (or it has none): the preview has no account to show.");

  const symbols = new Map<string, TradeSymbol>(names.symbols.map((s) => [s.name, s]));
  const rate = rates(quotes);
  const currencyOf = new Map(rows.map((r) => [r.login, r.currency]));
  const unconverted = new Set<string>();
  const byLogin = new Map<string, LeveragePosition[]>();
  for (const p of positions) {
    const symbol = symbols.get(p.symbol);
    const lots = volumeToLots(p.volume);
    let notional = 0;
    if (needsNotional && symbol) {
      const currency = currencyOf.get(p.login);
      const r = currency === undefined ? undefined : rate(symbol.profitCurrency, currency);
      if (r === undefined) unconverted.add(`${symbol.profitCurrency} to ${currency ?? "?"}`);
      else notional = Math.round(lots * symbol.contractSize * p.currentPrice * r * 100);
    }
    const list = byLogin.get(p.login) ?? [];
    list.push({ symbol: symbol ? symbolKey(symbol) : p.symbol, lots, notional, openedBeforeChange: true });
    byLogin.set(p.login, list);
  }
  if (unconverted.size > 0) notes.push(`No quote on the server converts ${[...unconverted].join(", ")}: those positions count no notional exposure.`);

  const accounts: LeverageAccount[] = rows.map((r) => ({
    login: r.login,
    group: r.group,
    currency: r.currency,
    equity: moneyFromDecimal(r.equity),
    leverage: r.leverage,
    positions: byLogin.get(r.login) ?? [],
  }));
  const compiled = compileRules(request.settings, { timeZone: clock.timeZone });
  const whatIfAt = request.whatIf?.serverTime === undefined ? undefined : clock.ofWallClock(wallOf(request.whatIf.serverTime));
  const equity = request.whatIf?.equity === undefined ? undefined : Math.round(request.whatIf.equity * 100);
  const result = preview(compiled, accounts, {
    at: clock.now,
    groupLeverage: new Map(names.groups.map((g) => [g.name, g.defaultLeverage])),
    ...(whatIfAt !== undefined || equity !== undefined
      ? { whatIf: { ...(whatIfAt !== undefined ? { at: whatIfAt } : {}), ...(equity !== undefined ? { equity } : {}) } }
      : {}),
  });

  const search = request.login?.trim() ?? "";
  const matching = result.rows.filter((r) => (search === "" || r.login.startsWith(search)) && (!request.onlyChanged || r.changed));
  return {
    at: clock.wallText(result.at),
    whatIf: result.whatIf,
    counts: result.counts,
    total: matching.length,
    rows: matching.slice(request.offset, request.offset + request.limit).map((r) => ({
      login: r.login,
      group: r.group,
      currency: r.currency,
      equity: r.equity / 100,
      currentLeverage: r.currentLeverage,
      leverage: r.leverage,
      changed: r.changed,
      ruleIndex: r.ruleIndex,
      ruleName: r.ruleName,
      mode: r.mode,
      tierIndex: r.tierIndex,
      windowIndex: r.windowIndex,
      windowKind: r.windowKind,
      cappedBy: r.cappedBy,
      reason: r.reason,
    })),
    warnings: warningsFor(request.settings, names.groups, names.symbols, clock),
    notes,
  };
}
