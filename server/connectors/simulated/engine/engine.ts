/**
 * The simulated trading server's engine: one implementation for all three platforms,
 * parameterized by flavour. It speaks the normalized model; sessions put each platform's native
 * dress on it. Operations that move money or positions are exactly-once per operation id.
 */
import type {
  AccountPatch,
  BalanceOperationRequest,
  ClosePositionRequest,
  Group,
  Holiday,
  JournalFilter,
  CancelPendingOrderRequest,
  ModifyPendingOrderRequest,
  ModifyPositionRequest,
  NewAccount,
  OrderRequest,
  PasswordKind,
  PendingOrder,
  PendingOrderResult,
  PlacePendingOrderRequest,
  PositionRecord,
  Quote,
  TradePlatformType,
  TradePlugin,
  TradeSymbol,
} from "../../../../core/trading/index.ts";
import type { ExecutionProfile } from "../../../../core/dealing/schema.ts";
import type { Clock } from "../../clock.ts";
import type { HistorySlice } from "../../wire/codec.ts";
import { groupCatalog, symbolCatalog } from "../catalog.ts";
import { createFlavour } from "../flavour.ts";
import { populate } from "../population.ts";
import { Random } from "../random.ts";
import * as accounts from "./accounts.ts";
import * as config from "./config.ts";
import { FlexibleLeverageRunner, type LeverageChange } from "./flexibleLeverage.ts";
import * as dealing from "./dealing.ts";
import { marketOpen, now, type EngineContext } from "./context.ts";
import { ServerJournal } from "./journal.ts";
import { balanceOperation } from "./money.ts";
import * as orders from "./orders.ts";
import * as plugins from "./plugins.ts";
import { PriceFeed } from "./prices.ts";
import { RememberedResults } from "./remembered.ts";
import { EngineState, type FinishedOrder } from "./state.ts";
import * as trading from "./trading.ts";
import { TransactionLog } from "./transactions.ts";
import { snapshotAccount, snapshotPosition } from "./valuation.ts";

export interface EngineOptions {
  platform: TradePlatformType;
  seed: number;
  clock: Clock;
  accounts: number;
  timeZoneOffsetMinutes: number;
  /** Share of accounts that start with an open position. */
  initialPositionRatio: number;
  /** Transactions kept for connections that come back (a real server's event window). */
  retainedTransactions: number;
  /** "later": the starting accounts are added by `populateFor` calls (in slices), not in the constructor. */
  population?: "now" | "later";
  /** EngineContext `marketsAlwaysOpen`. */
  marketsAlwaysOpen?: () => boolean;
  /** The manager login the server's plugins start with in their `Managers` parameter ("1000" by default). */
  managerLogin?: string;
}

/** Orders keep their refusals under their request id (server/connectors/simulated/engine/remembered.ts). */
const ORDERS = { keepRefusals: true };

export class SimulatedEngine {
  readonly ctx: EngineContext;
  /** Separate generators, so prices do not depend on how many requests came in. */
  readonly traderRandom: Random;
  readonly faultRandom: Random;
  private readonly remembered = new RememberedResults();
  /** The Flexible Leverage plugin at work (engine/flexibleLeverage.ts). */
  readonly flexibleLeverage = new FlexibleLeverageRunner();
  /** The starting accounts still to be added; null once all are in. */
  private population: Generator<void, void, void> | null;

  constructor(options: EngineOptions) {
    const random = new Random(options.seed);
    const feedRandom = random.fork();
    this.traderRandom = random.fork();
    this.faultRandom = random.fork();
    const populationRandom = random.fork();
    const state = new EngineState();
    for (const seed of symbolCatalog()) state.symbols.set(seed.symbol.name, seed.symbol);
    for (const group of groupCatalog(options.platform, random)) state.groups.set(group.name, group);
    for (const plugin of plugins.startingPlugins(options.platform, options.managerLogin ?? "1000")) state.plugins.set(plugin.id, plugin);
    this.ctx = {
      state,
      flavour: createFlavour(options.platform, random),
      feed: new PriceFeed(symbolCatalog(), feedRandom, options.clock.now()),
      journal: new ServerJournal(),
      log: new TransactionLog(options.retainedTransactions),
      random,
      clock: options.clock,
      timeZoneOffsetMinutes: options.timeZoneOffsetMinutes,
      marketsAlwaysOpen: options.marketsAlwaysOpen,
    };
    this.population = populate(this.ctx, options.accounts, options.initialPositionRatio, populationRandom);
    if (options.population !== "later") this.populateFor(Infinity);
  }

  /** All the starting accounts are in. */
  get populated(): boolean {
    return this.population === null;
  }

  /**
   * Adds starting accounts for about `budgetMs` of work (a step of POPULATION_STEP at least);
   * true once all are in. The result is the same however it is sliced.
   */
  populateFor(budgetMs: number): boolean {
    if (!this.population) return true;
    const until = performance.now() + budgetMs;
    do {
      if (this.population.next().done) {
        this.population = null;
        return true;
      }
    } while (performance.now() < until);
    return false;
  }

  get platform(): TradePlatformType {
    return this.ctx.flavour.platform;
  }

  serverTime(): number {
    return now(this.ctx);
  }

  listAccounts(after: string | null, limit: number, groupMask: string | null) {
    return accounts.listAccounts(this.ctx, after, limit, groupMask);
  }

  getAccount(login: string) {
    return snapshotAccount(this.ctx, this.ctx.state.account(login));
  }

  createAccount(request: NewAccount) {
    return accounts.createAccount(this.ctx, request);
  }

  updateAccount(login: string, patch: AccountPatch) {
    return accounts.updateAccount(this.ctx, login, patch);
  }

  setPassword(login: string, password: string, kind: PasswordKind): void {
    accounts.setPassword(this.ctx, login, password, kind);
  }

  groups(): Group[] {
    return [...this.ctx.state.groups.values()].map((g) => structuredClone(g));
  }

  /** Replaces a group's record (engine/config.ts); refused when the platform's rules refuse it. */
  updateGroup(name: string, group: Group): Group {
    return config.updateGroup(this.ctx, name, group);
  }

  /** Replaces a symbol's record (engine/config.ts); its feed follows the new digits and spread. */
  updateSymbol(name: string, symbol: TradeSymbol): TradeSymbol {
    return config.updateSymbol(this.ctx, name, symbol);
  }

  holidays(): Holiday[] {
    return structuredClone(this.ctx.state.holidays);
  }

  /** Replaces the server's holidays (engine/config.ts). */
  setHolidays(holidays: Holiday[]): Holiday[] {
    return config.setHolidays(this.ctx, holidays);
  }

  /** Held open (`marketsAlwaysOpen`), every symbol says so in its sessions: what it reports is what it does. */
  symbols(): TradeSymbol[] {
    return [...this.ctx.state.symbols.values()].map((s) => config.reportedSymbol(this.ctx, s));
  }

  quotes(symbols: readonly string[] | null): Quote[] {
    if (symbols === null) return this.ctx.feed.quotes().map((q) => ({ ...q }));
    return symbols.map((name) => {
      this.ctx.state.symbol(name);
      return { ...(this.ctx.feed.quote(name) as Quote) };
    });
  }

  positions(login: string | null): PositionRecord[] {
    const ids = login === null ? [...this.ctx.state.positions.keys()] : [...this.ctx.state.account(login).positions];
    return ids.map((id) => snapshotPosition(this.ctx, this.ctx.state.position(id)));
  }

  /** Positions of these accounts, in the order given; unknown logins are skipped. */
  positionsOf(logins: readonly string[]): PositionRecord[] {
    const records: PositionRecord[] = [];
    for (const login of logins) {
      const account = this.ctx.state.accounts.get(login);
      if (account) for (const id of account.positions) records.push(snapshotPosition(this.ctx, this.ctx.state.position(id)));
    }
    return records;
  }

  /** Deals within [from, to], and closed trades opened or closed within it (MT4 and Match-Trader rebuild entry deals from them). */
  history(login: string, from: number, to: number): HistorySlice {
    this.ctx.state.account(login);
    const within = (t: number) => t >= from && t <= to;
    return {
      deals: (this.ctx.state.dealsByLogin.get(login) ?? []).filter((d) => within(d.time)).map((d) => ({ ...d })),
      closed: (this.ctx.state.closedByLogin.get(login) ?? [])
        .filter((c) => within(c.position.openTime) || within(c.position.closeTime))
        .map((c) => structuredClone(c)),
    };
  }

  journal(from: number, to: number, filter: JournalFilter, limit: number) {
    return this.ctx.journal.query(from, to, filter, limit);
  }

  balance(request: BalanceOperationRequest) {
    return this.remembered.once(`balance:${request.operationId}`, request, () => balanceOperation(this.ctx, request));
  }

  /** Puts a dealing execution profile in force (./dealing.ts), null for none: a recorded change like any other. */
  setDealingProfile(profile: ExecutionProfile | null): void {
    dealing.setDealingProfile(this.ctx, profile);
  }

  placeOrder(request: OrderRequest) {
    return this.remembered.once(`trade:${request.requestId}`, request, () => trading.openPosition(this.ctx, request), ORDERS);
  }

  modifyPosition(request: ModifyPositionRequest) {
    return this.remembered.once(`trade:${request.requestId}`, request, () => trading.modifyPosition(this.ctx, request), ORDERS);
  }

  closePosition(request: ClosePositionRequest) {
    return this.remembered.once(`trade:${request.requestId}`, request, () => trading.closePosition(this.ctx, request), ORDERS);
  }

  pendingOrders(login: string | null): PendingOrder[] {
    return orders.pendingOrders(this.ctx, login);
  }

  /**
   * Pending orders that left the book (filled, cancelled, expired) within [from, to], of one
   * account or of all, oldest first per account.
   */
  orderHistory(login: string | null, from: number, to: number): FinishedOrder[] {
    if (login !== null) this.ctx.state.account(login);
    const lists = login === null ? [...this.ctx.state.finishedOrdersByLogin.values()] : [this.ctx.state.finishedOrdersByLogin.get(login) ?? []];
    return lists.flatMap((list) => list.filter((f) => f.time >= from && f.time <= to).map((f) => structuredClone(f)));
  }

  placePendingOrder(request: PlacePendingOrderRequest): PendingOrderResult {
    return this.remembered.once(`trade:${request.requestId}`, request, () => orders.placePendingOrder(this.ctx, request), ORDERS);
  }

  modifyPendingOrder(request: ModifyPendingOrderRequest): PendingOrderResult {
    return this.remembered.once(`trade:${request.requestId}`, request, () => orders.modifyPendingOrder(this.ctx, request), ORDERS);
  }

  cancelPendingOrder(request: CancelPendingOrderRequest): PendingOrderResult {
    return this.remembered.once(`trade:${request.requestId}`, request, () => orders.cancelPendingOrder(this.ctx, request), ORDERS);
  }

  /** The server's plugins (none on Match-Trader, which has no such thing). */
  plugins(): TradePlugin[] {
    if (this.platform === "MatchTrader") throw plugins.noPlugins();
    return plugins.listPlugins(this.ctx);
  }

  /** Writes one plugin's enabled flag and parameters (engine/plugins.ts); Flexible Leverage applies its rules at once. */
  updatePlugin(wanted: TradePlugin): TradePlugin {
    const updated = plugins.updatePlugin(this.ctx, wanted, (before, after) => this.flexibleLeverage.saved(this.ctx, before, after));
    this.flexibleLeverage.run(this.ctx);
    return updated;
  }

  /** How many leverages the Flexible Leverage plugin would change now (a read: the clockwork asks before running it). */
  flexibleLeverageDue(): number {
    return this.flexibleLeverage.due(this.ctx).length;
  }

  /** The Flexible Leverage plugin's round: sets the leverages its rules call for (engine/flexibleLeverage.ts). */
  runFlexibleLeverage(): LeverageChange[] {
    return this.flexibleLeverage.run(this.ctx);
  }

  /**
   * One step of the price feed, `stepMs` after the last (0: a step by hand, every symbol once), in
   * a feed whose symbols move once per `baseStepMs` unless they have a tick rate of their own
   * (PriceFeed.tick); then, if a price moved or the interval came round, what the server does on
   * its own (pending orders, SL, TP, stop out).
   */
  tickPrices(stepMs = 0, baseStepMs = stepMs): void {
    const serverTime = this.ctx.clock.now() + this.ctx.timeZoneOffsetMinutes * 60_000;
    if (!this.ctx.feed.tick(now(this.ctx), (symbol) => marketOpen(this.ctx, symbol, serverTime), stepMs, baseStepMs)) return;
    orders.triggerOrders(this.ctx);
    trading.enforceStops(this.ctx);
  }

  /**
   * Quotes a symbol at exactly this bid and ask, then does what the server does on any price move
   * (pending orders, SL, TP, stop out): the market control tests and demos use to reach a price.
   */
  setQuote(symbol: string, bid: number, ask: number): void {
    this.ctx.state.symbol(symbol);
    this.ctx.feed.set(symbol, bid, ask, now(this.ctx));
    orders.triggerOrders(this.ctx);
    trading.enforceStops(this.ctx);
  }

  /** A manager request the server refused, as MetaTrader's journal shows it. */
  recordRefusal(message: string): void {
    this.ctx.journal.write(now(this.ctx), "warning", `request refused: ${message}`);
  }

  recordManagerLogin(login: string, ip: string): void {
    this.ctx.journal.write(now(this.ctx), "login", `manager '${login}' connected from ${ip}`, null, ip);
  }
}
