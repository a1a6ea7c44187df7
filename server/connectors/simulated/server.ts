/**
 * A simulated trading server of one platform type, in process: the engine, its price feed and
 * simulated traders on timers of an injectable clock, faults, and manager connections that speak
 * the platform's native shapes. This is Toolbox's demo mode and the reference every connector
 * test runs against.
 */
import { SIMULATED_ACCOUNTS_DEFAULT, SIMULATED_ACCOUNTS_MAX, SIMULATED_TRADE_RATE_DEFAULT } from "../../../core/schemas/platform.ts";
import type { TradePlatformType } from "../../../core/trading/index.ts";
import { setImmediate as yieldToEventLoop } from "node:timers/promises";
import { guardedClock, systemClock, type Clock, type TimerHandle } from "../clock.ts";
import { connectorErrors } from "../errors.ts";
import type { PlatformCodec } from "../wire/codec.ts";
import { LinkError, NativeError, type NativeTypes, type WireCredentials, type WireTransport } from "../wire/wire.ts";
import { SimulatedEngine } from "./engine/engine.ts";
import type { LeverageChange } from "./engine/flexibleLeverage.ts";
import { Faults } from "./faults.ts";
import { captureState, restoreState } from "./persistence/engineState.ts";
import { CommandRecorder, type SimulationStore, type StoreFailure } from "./persistence/recorder.ts";
import { SimulatedSession } from "./session.ts";
import { SimulatedTraders } from "./traders.ts";

export interface SimulatedServerOptions {
  platform: TradePlatformType;
  seed?: number;
  /** Accounts created at start: 300 by default, at most 100,000. */
  accounts?: number;
  /** Simulated trading actions per second: 3 by default; thousands for benchmarks. */
  tradeRate?: number;
  feedIntervalMs?: number;
  traderIntervalMs?: number;
  /** MetaTrader servers usually run on broker time (UTC+2); Match-Trader speaks UTC. */
  timeZoneOffsetMinutes?: number;
  /** The manager login the server accepts. */
  manager?: WireCredentials;
  initialPositionRatio?: number;
  retainedTransactions?: number;
  clock?: Clock;
  /**
   * Build the starting accounts in slices of a few milliseconds that let the event loop run in
   * between (`ready` resolves when all are in; connections wait for it, the clockwork starts
   * then), instead of all at once in the constructor. A 100,000-account server takes a second or
   * two to build: in one piece, every request of every organization would wait that long.
   */
  populateInSlices?: boolean;
  /**
   * Where a failure of the server's own work goes (a timer, an event it cannot deliver): the
   * platform's supervisor. Without it such an error is thrown where it happens, as any bug is.
   */
  onFault?: (error: unknown) => void;
  /**
   * Where the server keeps its state (decision 0069): restored from it at start (the seed only
   * builds a server never saved), every change written to it before anyone sees it.
   */
  store?: SimulationStore;
  /** With a store: a snapshot every so many commands (5,000 by default), so a restore replays few. */
  snapshotEveryCommands?: number;
  /**
   * With a store: how long the clockwork's calls (ticks, the traders' steps) are gathered before
   * they are written (CommandRecorder; 0 by default: at once). A request's answer never waits it out.
   */
  gatherMs?: number;
  /** With a store: it could not be written (database away, or this node no longer runs the server). The server has stopped. */
  onStoreFailure?: (failure: StoreFailure) => void;
  /**
   * Every market open on the real clock, whatever its sessions say (decision 0084): for test runs
   * on any day of the week, since forex and indices close at weekends. Once the server's clock is
   * moved (`setServerClock`) the sessions apply again, so a test can still show a closed market.
   * Defaults to the environment's `TOOLBOX_SIMULATED_MARKETS_ALWAYS_OPEN=1`; off otherwise.
   */
  marketsAlwaysOpen?: boolean;
}

/** Engine calls that change nothing: not recorded. */
const READS = new Set([
  "serverTime",
  "listAccounts",
  "getAccount",
  "groups",
  "symbols",
  "holidays",
  "quotes",
  "positions",
  "positionsOf",
  "history",
  "pendingOrders",
  "orderHistory",
  "journal",
  "populateFor",
  "plugins",
  "flexibleLeverageDue",
]);
/** Engine calls whose arguments hold a password: a snapshot is written instead of the call. */
const CARRIES_PASSWORD = new Set(["createAccount", "setPassword"]);

export const MAX_SIMULATED_ACCOUNTS = SIMULATED_ACCOUNTS_MAX;
/** Work per slice when populating in slices; the event loop runs between slices. */
const POPULATION_SLICE_MS = 10;
/**
 * Trading actions per task of the clock: at thousands a second, a timer's due actions run in
 * several tasks, with the event loop free in between (a few milliseconds each), not in one.
 */
const ACTIONS_PER_TASK = 200;
/** The finest step of the price feed: ticks at a symbol's own rate are spread over the feed's interval at this grain. */
const FEED_SUB_STEP_MS = 100;
/** How often the Flexible Leverage plugin evaluates the accounts (engine/flexibleLeverage.ts). */
const FLEXIBLE_LEVERAGE_EVERY_MS = 5_000;
export const DEFAULT_MANAGER: WireCredentials = { login: "1000", password: "Manager1" };

export class SimulatedServer {
  readonly platform: TradePlatformType;
  readonly engine: SimulatedEngine;
  readonly traders: SimulatedTraders;
  readonly faults: Faults;
  readonly timeZoneOffsetMinutes: number;
  readonly clock: Clock;
  /** Resolves once the starting accounts are all in (at once unless `populateInSlices`); never rejects. */
  readonly ready: Promise<void>;
  private populationFailed = false;
  /** The open sessions, with the Toolbox node each came from (undefined: not said). */
  private readonly sessions = new Map<SimulatedSession<NativeTypes>, string | undefined>();
  private readonly timers: TimerHandle[] = [];
  private running = false;
  /** Stopped for good: whatever of it still runs (a late event) is no one's concern any more. */
  private retired = false;
  private pendingActions = 0;
  private tradingLater = false;
  /** The time every engine call sees while it runs (recorded, and replayed as is); null: the clock's. */
  private pinnedNow: number | null = null;
  private recorder: CommandRecorder | null = null;
  /** How far the server's own clock (its trading, sessions and server time) runs ahead of the real one. */
  private clockShiftMs = 0;

  constructor(private readonly options: SimulatedServerOptions) {
    const accounts = options.accounts ?? SIMULATED_ACCOUNTS_DEFAULT;
    if (!Number.isInteger(accounts) || accounts < 0 || accounts > MAX_SIMULATED_ACCOUNTS)
      throw connectorErrors.invalidRequest(`A simulated server holds from 0 to ${MAX_SIMULATED_ACCOUNTS} accounts.`);
    this.platform = options.platform;
    const clock = options.clock ?? systemClock;
    // Every timer of the server, and of the connectors that reach it, runs guarded when supervised.
    this.clock = options.onFault ? guardedClock(clock, (error) => this.fault(error)) : clock;
    this.timeZoneOffsetMinutes = options.timeZoneOffsetMinutes ?? (options.platform === "MatchTrader" ? 0 : 120);
    // The engine reads the time pinned by a recorded call, else through the shift (setServerClock);
    // timers stay on the real clock.
    const clockOfEngine: Clock = {
      now: () => this.pinnedNow ?? this.clock.now() + this.clockShiftMs,
      setTimeout: (callback, ms) => this.clock.setTimeout(callback, ms),
      clearTimeout: (handle) => this.clock.clearTimeout(handle),
    };
    const engine = new SimulatedEngine({
      platform: options.platform,
      seed: options.seed ?? 1,
      clock: clockOfEngine,
      accounts,
      timeZoneOffsetMinutes: this.timeZoneOffsetMinutes,
      marketsAlwaysOpen: (options.marketsAlwaysOpen ?? process.env.TOOLBOX_SIMULATED_MARKETS_ALWAYS_OPEN === "1") ? () => this.clockShiftMs === 0 : undefined,
      initialPositionRatio: options.initialPositionRatio ?? 0.2,
      retainedTransactions: options.retainedTransactions ?? 200_000,
      population: options.populateInSlices || options.store ? "later" : "now",
      managerLogin: (options.manager ?? DEFAULT_MANAGER).login,
    });
    this.engine = options.store ? this.recorded(engine) : engine;
    this.traders = new SimulatedTraders(engine.ctx, engine.traderRandom);
    this.faults = new Faults(engine.faultRandom, (node) => this.dropSessions(node));
    this.raw = engine;
    this.ready = options.store ? this.restoreOrPopulate(options.store) : this.engine.populated ? Promise.resolve() : this.populateInSlices();
  }

  private readonly raw: SimulatedEngine;

  /** What a saved server is made of: the engine and its simulated traders. */
  private stateRoot(): object {
    return { engine: this.raw, traders: this.traders };
  }

  /** The engine as the sessions and the clockwork see it: every call that changes it is recorded. */
  private recorded(engine: SimulatedEngine): SimulatedEngine {
    return new Proxy(engine, {
      get: (target, name, receiver) => {
        const value = Reflect.get(target, name, receiver) as unknown;
        if (typeof value !== "function" || typeof name !== "string" || READS.has(name)) return value;
        return (...args: unknown[]) => this.run(name, args, (copy) => (value as (...a: unknown[]) => unknown).apply(target, copy));
      },
    });
  }

  /** Runs one call at one pinned time and records it (with a copy of its arguments as they are written). */
  private run<T>(op: string, args: unknown[], call: (args: unknown[]) => T): T {
    if (!this.recorder) return call(args);
    const copy = JSON.parse(JSON.stringify(args)) as unknown[];
    const at = this.clock.now() + this.clockShiftMs;
    this.pinnedNow = at;
    try {
      return call(copy);
    } finally {
      this.pinnedNow = null;
      if (CARRIES_PASSWORD.has(op)) this.recorder.recordBySnapshot();
      else this.recorder.record(op, copy, at);
    }
  }

  private async restoreOrPopulate(store: SimulationStore): Promise<void> {
    try {
      const saved = await store.load();
      if (this.retired) return;
      if (saved) {
        restoreState(this.stateRoot(), saved.snapshot);
        for (const command of saved.commands) this.replay(command.op, command.args, command.at);
      } else while (!this.engine.populateFor(POPULATION_SLICE_MS)) await yieldToEventLoop();
      if (this.retired) return;
      this.recorder = new CommandRecorder(store, saved ? (saved.commands.at(-1)?.seq ?? saved.seq) : 0, {
        state: () => this.stateRoot(),
        snapshotEvery: this.options.snapshotEveryCommands ?? 5_000,
        gatherMs: this.options.gatherMs,
        onFailure: (failure) => {
          this.stop();
          this.options.onStoreFailure?.(failure);
        },
      });
      // A server never saved is saved as built, before anyone reaches it.
      if (!saved) await this.recorder.snapshotNow();
    } catch (error) {
      this.populationFailed = true;
      if (this.options.onFault) this.fault(error);
      else
        queueMicrotask(() => {
          throw error;
        });
    }
  }

  /** One recorded call again, at its time; a refusal refuses again, as it did the first time. */
  private replay(op: string, args: unknown[], at: number): void {
    const target = op === "traders.step" ? (this.traders as unknown as Record<string, unknown>) : (this.raw as unknown as Record<string, unknown>);
    const method = target[op === "traders.step" ? "step" : op];
    if (typeof method !== "function") throw new Error(`A saved simulated server holds a call this engine does not know (${op}).`);
    this.pinnedNow = at;
    try {
      (method as (...a: unknown[]) => unknown).apply(target, args);
    } catch {
      // It failed the first time too (a refusal is part of the record).
    } finally {
      this.pinnedNow = null;
    }
  }

  /** The whole state, as a saved server holds it (tests compare two servers with it). */
  capture(): Uint8Array {
    return captureState(this.stateRoot());
  }

  /**
   * Resolves once every change so far is written (at once without a store); rejects if it never will
   * be. `now`: someone waits for it, so the clockwork's gathered calls are written at once.
   */
  durable(options: { now?: boolean } = {}): Promise<void> {
    return this.recorder ? this.recorder.durable(options) : Promise.resolve();
  }

  /** Writes a snapshot of the state now (a clean stop: a restore then replays nothing). */
  async saveNow(): Promise<void> {
    await this.ready;
    if (this.recorder && !this.retired) await this.recorder.snapshotNow();
  }

  private async populateInSlices(): Promise<void> {
    try {
      while (!this.retired && !this.engine.populateFor(POPULATION_SLICE_MS)) await yieldToEventLoop();
    } catch (error) {
      this.populationFailed = true;
      // Outside any caller's stack: to the supervisor, or (unsupervised) as an uncaught error, as any bug.
      if (this.options.onFault) this.fault(error);
      else
        queueMicrotask(() => {
          throw error;
        });
    }
  }

  /** Starts the price feed and the simulated traders on the clock (once the starting accounts are in). */
  start(): void {
    if (this.running) return;
    this.running = true;
    if (this.engine.populated) this.startClockwork();
    else
      void this.ready.then(() => {
        if (this.running && !this.populationFailed) this.startClockwork();
      });
  }

  private startClockwork(): void {
    // Symbols move once per feed step; those with a tick rate of their own (the Quotes Monitor's
    // feed control) move at their rate, spread over the step in finer sub-steps.
    const feedStep = this.options.feedIntervalMs ?? 500;
    const subStep = Math.min(feedStep, FEED_SUB_STEP_MS);
    this.every(subStep, () => this.engine.tickPrices(subStep, feedStep));
    // The Flexible Leverage plugin's round: recorded only when a leverage changes.
    this.every(FLEXIBLE_LEVERAGE_EVERY_MS, () => {
      if (this.engine.flexibleLeverageDue() > 0) this.engine.runFlexibleLeverage();
    });
    const interval = this.options.traderIntervalMs ?? 100;
    const rate = this.options.tradeRate ?? SIMULATED_TRADE_RATE_DEFAULT;
    this.every(interval, () => {
      // Carry fractions over, so 3 actions a second on a 100 ms timer is exactly 3 a second. A server
      // that cannot keep up does not pile up more than a second's worth.
      this.pendingActions = Math.min(this.pendingActions + (rate * interval) / 1000, Math.max(rate, 1));
      this.tradeDue();
    });
  }

  /** Runs the due trading actions, ACTIONS_PER_TASK at a time, each batch in its own task of the clock. */
  private tradeDue(): void {
    const due = Math.min(Math.floor(this.pendingActions), ACTIONS_PER_TASK);
    this.pendingActions -= due;
    if (due > 0) this.run("traders.step", [due], ([n]) => this.traders.step(n as number));
    if (this.pendingActions >= 1 && !this.tradingLater) {
      this.tradingLater = true;
      const handle = this.clock.setTimeout(() => {
        const at = this.timers.indexOf(handle);
        if (at >= 0) this.timers.splice(at, 1);
        this.tradingLater = false;
        if (this.running) this.tradeDue();
      }, 0);
      this.timers.push(handle);
    }
  }

  stop(): void {
    this.running = false;
    this.retired = true;
    for (const timer of this.timers.splice(0)) this.clock.clearTimeout(timer);
    this.dropSessions();
  }

  /** How a connector reaches this server, speaking the platform through `codec`; `node`: the Toolbox node it connects from (per-node faults). */
  transport<N extends NativeTypes>(codec: PlatformCodec<N>, node?: string): WireTransport<N> {
    if (codec.platform !== this.platform) throw new Error(`A ${codec.platform} codec cannot talk to a ${this.platform} server`);
    return {
      open: async (credentials, handlers) => {
        // A server still building its accounts is starting up: the client waits (within its connect timeout).
        await this.ready;
        if (this.populationFailed || this.retired) throw new LinkError("unreachable");
        if (this.faults.refuses(node)) throw new LinkError("unreachable");
        if (this.faults.delayMs > 0) await new Promise<void>((resolve) => this.clock.setTimeout(resolve, this.faults.delayMs));
        if (this.faults.refuses(node)) throw new LinkError("unreachable");
        const manager = this.options.manager ?? DEFAULT_MANAGER;
        if (credentials.login !== manager.login || credentials.password !== manager.password)
          throw new NativeError(codec.error.encode(connectorErrors.credentialsRefused()));
        const session = new SimulatedSession(
          this.engine,
          codec,
          this.faults,
          this.clock,
          handlers,
          (s) => this.sessions.delete(s as never),
          (error) => this.fault(error),
          (durableOptions) => this.durable(durableOptions),
        );
        this.sessions.set(session as never, node);
        this.engine.recordManagerLogin(credentials.login, "127.0.0.1");
        return session;
      },
    };
  }

  /**
   * Sets the server's own clock to `at` (ms since the epoch; null: back to the real time), as a
   * demo of a weekend or a holiday: its sessions, prices' times and server time follow it.
   */
  setServerClock(at: number | null): void {
    this.clockShiftMs = at === null ? 0 : at - this.clock.now();
  }

  /**
   * Hears the leverage changes of the server's Flexible Leverage plugin, each round's once it is
   * written (nothing a call did is seen before: decision 0069); the rounds replayed at a restore are
   * heard again (a listener keys its records on the change: login and instant). One listener.
   */
  onLeverageChanges(listener: (changes: LeverageChange[]) => void): void {
    this.raw.flexibleLeverage.listen((changes) => {
      if (this.retired) return;
      this.durable().then(
        () => listener(changes),
        () => {}, // never written: nobody saw it, and nobody hears of it
      );
    });
  }

  get connectionCount(): number {
    return this.sessions.size;
  }

  /** A failure of the server's own work: to the supervisor if there is one, else thrown as is. */
  fault(error: unknown): void {
    if (this.retired) return;
    if (!this.options.onFault) throw error;
    this.options.onFault(error);
  }

  /** Drops the open sessions (only those from `node`, if given). */
  private dropSessions(node?: string): void {
    for (const [session, from] of [...this.sessions]) if (node === undefined || from === node) session.drop();
  }

  private every(ms: number, task: () => void): void {
    const schedule = () => {
      const handle = this.clock.setTimeout(() => {
        const at = this.timers.indexOf(handle);
        if (at >= 0) this.timers.splice(at, 1);
        if (!this.running) return;
        // Scheduled again first: a task that throws (into the supervisor) must not stop the server's clockwork.
        schedule();
        this.faults.takeTimerFailure();
        task();
      }, ms);
      this.timers.push(handle);
    };
    schedule();
  }
}
