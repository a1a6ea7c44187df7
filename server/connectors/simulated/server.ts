import { SIMULATED_ACCOUNTS_DEFAULT, SIMULATED_ACCOUNTS_MAX, SIMULATED_TRADE_RATE_DEFAULT } from "../../../core/schemas/platform.ts";
/**
 * A simulated trading server of one platform type, in process: the engine, its price feed and
 * simulated traders on timers of an injectable clock, faults, and manager connections that speak
 * the platform's native shapes. This is Toolbox's demo mode and the reference every connector
 * test runs against.
 */
import type { TradePlatformType } from "../../../core/trading/index.ts";
import { systemClock, type Clock, type TimerHandle } from "../clock.ts";
import { connectorErrors } from "../errors.ts";
import type { PlatformCodec } from "../wire/codec.ts";
import { LinkError, NativeError, type NativeTypes, type WireCredentials, type WireTransport } from "../wire/wire.ts";
import { SimulatedEngine } from "./engine/engine.ts";
import { Faults } from "./faults.ts";
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
}

export const MAX_SIMULATED_ACCOUNTS = SIMULATED_ACCOUNTS_MAX;
export const DEFAULT_MANAGER: WireCredentials = { login: "1000", password: "Manager1" };

export class SimulatedServer {
  readonly platform: TradePlatformType;
  readonly engine: SimulatedEngine;
  readonly traders: SimulatedTraders;
  readonly faults: Faults;
  readonly timeZoneOffsetMinutes: number;
  readonly clock: Clock;
  private readonly sessions = new Set<SimulatedSession<NativeTypes>>();
  private readonly timers: TimerHandle[] = [];
  private running = false;
  private pendingActions = 0;

  constructor(private readonly options: SimulatedServerOptions) {
    const accounts = options.accounts ?? SIMULATED_ACCOUNTS_DEFAULT;
    if (!Number.isInteger(accounts) || accounts < 0 || accounts > MAX_SIMULATED_ACCOUNTS)
      throw connectorErrors.invalidRequest(`A simulated server holds from 0 to ${MAX_SIMULATED_ACCOUNTS} accounts.`);
    this.platform = options.platform;
    this.clock = options.clock ?? systemClock;
    this.timeZoneOffsetMinutes = options.timeZoneOffsetMinutes ?? (options.platform === "MatchTrader" ? 0 : 120);
    this.engine = new SimulatedEngine({
      platform: options.platform,
      seed: options.seed ?? 1,
      clock: this.clock,
      accounts,
      timeZoneOffsetMinutes: this.timeZoneOffsetMinutes,
      initialPositionRatio: options.initialPositionRatio ?? 0.2,
      retainedTransactions: options.retainedTransactions ?? 200_000,
    });
    this.traders = new SimulatedTraders(this.engine.ctx, this.engine.traderRandom);
    this.faults = new Faults(this.engine.faultRandom, () => this.dropSessions());
  }

  /** Starts the price feed and the simulated traders on the clock. */
  start(): void {
    if (this.running) return;
    this.running = true;
    this.every(this.options.feedIntervalMs ?? 500, () => this.engine.tickPrices());
    const interval = this.options.traderIntervalMs ?? 100;
    const rate = this.options.tradeRate ?? SIMULATED_TRADE_RATE_DEFAULT;
    this.every(interval, () => {
      // Carry fractions over, so 3 actions a second on a 100 ms timer is exactly 3 a second.
      this.pendingActions += (rate * interval) / 1000;
      const due = Math.floor(this.pendingActions);
      this.pendingActions -= due;
      this.traders.step(due);
    });
  }

  stop(): void {
    this.running = false;
    for (const timer of this.timers.splice(0)) this.clock.clearTimeout(timer);
    this.dropSessions();
  }

  /** How a connector reaches this server, speaking the platform through `codec`. */
  transport<N extends NativeTypes>(codec: PlatformCodec<N>): WireTransport<N> {
    if (codec.platform !== this.platform) throw new Error(`A ${codec.platform} codec cannot talk to a ${this.platform} server`);
    return {
      open: async (credentials, handlers) => {
        if (this.faults.refusingConnections) throw new LinkError("unreachable");
        if (this.faults.delayMs > 0) await new Promise<void>((resolve) => this.clock.setTimeout(resolve, this.faults.delayMs));
        if (this.faults.refusingConnections) throw new LinkError("unreachable");
        const manager = this.options.manager ?? DEFAULT_MANAGER;
        if (credentials.login !== manager.login || credentials.password !== manager.password)
          throw new NativeError(codec.error.encode(connectorErrors.credentialsRefused()));
        const session = new SimulatedSession(this.engine, codec, this.faults, this.clock, handlers, (s) =>
          this.sessions.delete(s as never),
        );
        this.sessions.add(session as never);
        this.engine.recordManagerLogin(credentials.login, "127.0.0.1");
        return session;
      },
    };
  }

  get connectionCount(): number {
    return this.sessions.size;
  }

  private dropSessions(): void {
    for (const session of [...this.sessions]) session.drop();
  }

  private every(ms: number, task: () => void): void {
    const schedule = () => {
      const handle = this.clock.setTimeout(() => {
        const at = this.timers.indexOf(handle);
        if (at >= 0) this.timers.splice(at, 1);
        if (!this.running) return;
        task();
        schedule();
      }, ms);
      this.timers.push(handle);
    };
    schedule();
  }
}
