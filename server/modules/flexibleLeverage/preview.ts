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
import type { TradePlatformConnector } from "../../connectors/connector.ts";
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

/**
 * What a preview reads of a platform (its mirrored accounts, open positions, groups and symbols),
 * kept for the next previews: the editor asks for one at each change of the draft, a page, a
 * search or a "what if", and none of those changes the population. Fresh for 3 s; after that a
 * preview still answers from it (at most a minute old) while one read of the platform refreshes it
 * for the next, so only the first preview of a platform waits for the read.
 */
const FRESH_MS = 3_000;
const KEPT_MS = 60_000;
const MAX_POPULATIONS = 16;
interface Population {
  names: Awaited<ReturnType<typeof serverNames>>;
  /** The accounts as the engine reads them, with their open positions (notional set per preview, see `withNotional`). */
  accounts: LeverageAccount[];
  /** Each open position with what its notional is made of. */
  positions: { position: LeveragePosition; symbol: TradeSymbol | undefined; currency: string | undefined; lotsTimesPrice: number }[];
}
type Kept = { readAt: number; population: Promise<Population>; refreshing?: Promise<Population> };
/** Per app (its database handle), so two apps in one process (tests' nodes) keep their own. */
const keptByApp = new WeakMap<object, Map<string, Kept>>();
const keptOf = (deps: FlexibleLeverageDeps) => {
  let kept = keptByApp.get(deps.db);
  if (!kept) keptByApp.set(deps.db, (kept = new Map<string, Kept>()));
  return kept;
};

/** After a save: the next preview reads the platform again (its accounts' leverages may have just changed). */
export function forgetPopulation(deps: FlexibleLeverageDeps, organizationId: string, platformId: string): void {
  keptOf(deps).delete(`${organizationId}/${platformId}`);
}

function populationOf(deps: FlexibleLeverageDeps, organizationId: string, platformId: string, connector: TradePlatformConnector): Promise<Population> {
  const populations = keptOf(deps);
  const key = `${organizationId}/${platformId}`;
  const now = Date.now();
  for (const [k, p] of populations) if (now - p.readAt >= KEPT_MS && !p.refreshing) populations.delete(k);
  const read = () => {
    const started = Date.now();
    const population = readPopulation(deps, organizationId, platformId, connector);
    population.then(
      () => {
        const entry = populations.get(key);
        if (!entry || entry.population === population || entry.refreshing === population) populations.set(key, { readAt: started, population });
      },
      () => {
        const entry = populations.get(key);
        if (entry?.population === population) populations.delete(key);
        else if (entry?.refreshing === population) delete entry.refreshing;
      },
    );
    return population;
  };
  const kept = populations.get(key);
  if (!kept) {
    if (populations.size >= MAX_POPULATIONS) populations.delete(populations.keys().next().value!);
    const population = read();
    populations.set(key, { readAt: now, population });
    return population;
  }
  if (now - kept.readAt >= FRESH_MS && !kept.refreshing) kept.refreshing = read();
  return kept.population;
}

async function readPopulation(deps: FlexibleLeverageDeps, organizationId: string, platformId: string, connector: TradePlatformConnector): Promise<Population> {
  const [rows, positions, names] = await Promise.all([
    mirroredAccounts(deps.db, organizationId, platformId),
    viaConnector(() => connector.openPositions()),
    serverNames(connector),
  ]);
  const symbols = new Map<string, TradeSymbol>(names.symbols.map((s) => [s.name, s]));
  const currencyOf = new Map(rows.map((r) => [r.login, r.currency]));
  const byLogin = new Map<string, LeveragePosition[]>();
  const kept: Population["positions"] = [];
  for (const p of positions) {
    const symbol = symbols.get(p.symbol);
    const lots = volumeToLots(p.volume);
    const position: LeveragePosition = { symbol: symbol ? symbolKey(symbol) : p.symbol, lots, notional: 0, openedBeforeChange: true };
    kept.push({ position, symbol, currency: currencyOf.get(p.login), lotsTimesPrice: lots * p.currentPrice });
    const list = byLogin.get(p.login) ?? [];
    list.push(position);
    byLogin.set(p.login, list);
  }
  const accounts: LeverageAccount[] = rows.map((r) => ({
    login: r.login,
    group: r.group,
    currency: r.currency,
    equity: moneyFromDecimal(r.equity),
    leverage: r.leverage,
    positions: byLogin.get(r.login) ?? [],
  }));
  return { names, accounts, positions: kept };
}

/**
 * Sets each kept position's notional for this preview (converted with the server's quotes now; 0
 * when no rule reads it) and says which currencies no quote converts. The positions are shared by
 * the previews of the platform: this runs in the same turn as the engine's evaluation that reads
 * them, so no other preview sees these values.
 */
function withNotional(population: Population, rate: ReturnType<typeof rates> | null): Set<string> {
  const unconverted = new Set<string>();
  for (const p of population.positions) {
    let notional = 0;
    if (rate && p.symbol) {
      const r = p.currency === undefined ? undefined : rate(p.symbol.profitCurrency, p.currency);
      if (r === undefined) unconverted.add(`${p.symbol.profitCurrency} to ${p.currency ?? "?"}`);
      else notional = Math.round(p.lotsTimesPrice * p.symbol.contractSize * r * 100);
    }
    p.position.notional = notional;
  }
  return unconverted;
}

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
  const [population, quotes] = await Promise.all([
    populationOf(deps, organizationId, platformId, connector),
    needsNotional ? viaConnector(() => connector.getQuotes()) : Promise.resolve([] as Quote[]),
  ]);
  const notes = [
    "Equity is Toolbox's copy of the accounts: for an account holding positions it is as of its last update, and moves with prices in between.",
    "Open positions are the server's as read for the previews (a few seconds ago; up to a minute when the editor was idle); each counts as opened before the rules change, as a save now makes it.",
  ];
  if (population.accounts.length === 0) notes.push("Toolbox has not read this server's accounts yet (or it has none): the preview has no account to show.");

  const { accounts, names } = population;
  // No await from here to the evaluation: the shared positions' notional is this preview's (withNotional).
  const unconverted = withNotional(population, needsNotional ? rates(quotes) : null);
  if (unconverted.size > 0) notes.push(`No quote on the server converts ${[...unconverted].join(", ")}: those positions count no notional exposure.`);

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
