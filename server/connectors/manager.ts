/**
 * Keeps one connection per enabled platform: connects, reconnects with backoff and jitter when a
 * link drops or an attempt fails, and publishes each platform's state. Every platform runs on
 * its own timers and promises; nothing here ever awaits one platform on behalf of another, and
 * every attempt has its own timeout, so a hung or failing server only ever delays itself.
 */
import type { ConnectionState, TradePlatformType } from "../../core/trading/index.ts";
import { backoffDelay, DEFAULT_BACKOFF, type BackoffPolicy } from "./backoff.ts";
import { systemClock, type Clock, type TimerHandle } from "./clock.ts";
import type { ConnectorConfig } from "./config.ts";
import type { TradePlatformConnector } from "./connector.ts";
import { ConnectorError, connectorErrors } from "./errors.ts";
import { createConnector } from "./factory.ts";
import { TimeoutError, withTimeout } from "./wire/timeout.ts";

export interface ManagedPlatform {
  id: string;
  enabled: boolean;
  config: ConnectorConfig;
}

export interface PlatformStatus {
  platformId: string;
  platform: TradePlatformType;
  state: ConnectionState;
  /** Failed attempts since the last success. */
  failures: number;
  nextRetryAt: number | null;
  error: { code: ConnectorError["code"]; message: string } | null;
  at: number;
}

export interface ConnectionManagerOptions {
  createConnector?: (config: ConnectorConfig, platformId: string) => TradePlatformConnector;
  /**
   * Where an unexpected exception in one platform's connection work goes (the platform's
   * supervisor). Without it, it is thrown where it happens.
   */
  onFault?: (platformId: string, error: unknown) => void;
  clock?: Clock;
  /** Injectable for tests; Math.random by default (jitter needs no reproducibility in production). */
  random?: () => number;
  backoff?: Partial<BackoffPolicy>;
  /** Longest a single connection attempt may take before it counts as failed. */
  connectTimeoutMs?: number;
}

interface Entry {
  id: string;
  configKey: string;
  connector: TradePlatformConnector;
  failures: number;
  attempting: boolean;
  timer: TimerHandle | null;
  nextRetryAt: number | null;
  /** Why the last attempt failed (the connector may not know: a hung attempt is still "connecting" to it). */
  lastFailure: ConnectorError | null;
  stopped: boolean;
  unlisten: () => void;
}

export class ConnectionManager {
  private readonly entries = new Map<string, Entry>();
  private readonly listeners = new Set<(status: PlatformStatus) => void>();
  private readonly clock: Clock;
  private readonly random: () => number;
  private readonly backoff: BackoffPolicy;
  private readonly connectTimeoutMs: number;
  private readonly create: (config: ConnectorConfig, platformId: string) => TradePlatformConnector;
  private readonly onFault: ((platformId: string, error: unknown) => void) | undefined;

  constructor(options: ConnectionManagerOptions = {}) {
    this.clock = options.clock ?? systemClock;
    this.random = options.random ?? Math.random;
    this.backoff = { ...DEFAULT_BACKOFF, ...options.backoff };
    this.connectTimeoutMs = options.connectTimeoutMs ?? 20_000;
    this.create = options.createConnector ?? ((config) => createConnector(config));
    this.onFault = options.onFault;
  }

  /** Brings the connections in line with the platforms: new and changed ones (re)connect, disabled and removed ones close. */
  sync(platforms: readonly ManagedPlatform[]): void {
    const wanted = new Map(platforms.filter((p) => p.enabled).map((p) => [p.id, p]));
    for (const [id, entry] of this.entries) {
      const platform = wanted.get(id);
      // Not awaited: sync is synchronous by contract, and remove() never rejects (it swallows a failed disconnect).
      if (!platform || keyOf(platform.config) !== entry.configKey) void this.remove(id);
    }
    for (const platform of wanted.values()) if (!this.entries.has(platform.id)) this.add(platform);
  }

  get(platformId: string): TradePlatformConnector | undefined {
    return this.entries.get(platformId)?.connector;
  }

  status(platformId: string): PlatformStatus | undefined {
    const entry = this.entries.get(platformId);
    return entry && this.statusOf(entry);
  }

  statuses(): PlatformStatus[] {
    return [...this.entries.values()].map((e) => this.statusOf(e));
  }

  onStatus(listener: (status: PlatformStatus) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** "Retry now": skips the wait, and retries even after refused credentials. */
  reconnectNow(platformId: string): void {
    const entry = this.entries.get(platformId);
    if (!entry || entry.attempting || entry.connector.state === "connected") return;
    this.clearTimer(entry);
    this.attempt(entry);
  }

  async stop(): Promise<void> {
    await Promise.all([...this.entries.keys()].map((id) => this.remove(id)));
  }

  private add(platform: ManagedPlatform): void {
    const connector = this.create(platform.config, platform.id);
    const entry: Entry = {
      id: platform.id,
      configKey: keyOf(platform.config),
      connector,
      failures: 0,
      attempting: false,
      timer: null,
      nextRetryAt: null,
      lastFailure: null,
      stopped: false,
      unlisten: () => undefined,
    };
    entry.unlisten = connector.onStateChange((change) =>
      this.guarded(entry, () => {
        // A link that drops after it worked: try again soon, with the usual backoff.
        if (change.state === "reconnecting" && !entry.attempting && !entry.timer) this.scheduleRetry(entry);
        this.publish(entry);
      }),
    );
    this.entries.set(platform.id, entry);
    this.attempt(entry);
  }

  private remove(id: string): Promise<void> {
    const entry = this.entries.get(id);
    if (!entry) return Promise.resolve();
    entry.stopped = true;
    this.clearTimer(entry);
    entry.unlisten();
    this.entries.delete(id);
    return entry.connector.disconnect().catch(() => undefined);
  }

  private attempt(entry: Entry): void {
    if (entry.stopped) return;
    entry.attempting = true;
    entry.nextRetryAt = null;
    this.publish(entry);
    withTimeout(entry.connector.connect(), this.connectTimeoutMs, this.clock).then(
      () => {
        entry.attempting = false;
        if (entry.stopped) return;
        entry.failures = 0;
        entry.lastFailure = null;
        this.publish(entry);
      },
      (error: unknown) => {
        entry.attempting = false;
        if (entry.stopped) return;
        entry.failures++;
        entry.lastFailure =
          error instanceof ConnectorError
            ? error
            : error instanceof TimeoutError
              ? connectorErrors.timeout(this.connectTimeoutMs)
              : connectorErrors.unreachable("Unexpected failure while connecting.");
        // Retrying refused credentials cannot help and may get the manager login blocked; wait for new ones.
        if (entry.lastFailure.code !== "credentialsRefused") this.scheduleRetry(entry);
        this.publish(entry);
      },
    );
  }

  private scheduleRetry(entry: Entry): void {
    const delay = backoffDelay(Math.max(1, entry.failures), this.backoff, this.random);
    entry.nextRetryAt = this.clock.now() + delay;
    entry.timer = this.clock.setTimeout(() => {
      entry.timer = null;
      this.guarded(entry, () => this.attempt(entry));
    }, delay);
  }

  /** Runs one platform's work so that an exception reaches its supervisor, not the event loop. */
  private guarded(entry: Entry, work: () => void): void {
    if (!this.onFault) return work();
    try {
      work();
    } catch (error) {
      if (!entry.stopped) this.onFault(entry.id, error);
    }
  }

  private clearTimer(entry: Entry): void {
    if (entry.timer) this.clock.clearTimeout(entry.timer);
    entry.timer = null;
    entry.nextRetryAt = null;
  }

  private statusOf(entry: Entry): PlatformStatus {
    const connected = entry.connector.state === "connected";
    const failure = connected ? null : (entry.lastFailure ?? entry.connector.lastError);
    // Between attempts a failed platform shows as failed, even if its connector is still stuck "connecting".
    const state = !connected && entry.lastFailure && !entry.attempting ? "failed" : entry.connector.state;
    return {
      platformId: entry.id,
      platform: entry.connector.platform,
      state,
      failures: entry.failures,
      nextRetryAt: entry.nextRetryAt,
      error: failure ? { code: failure.code, message: failure.message } : null,
      at: this.clock.now(),
    };
  }

  private publish(entry: Entry): void {
    const status = this.statusOf(entry);
    for (const listener of this.listeners) {
      try {
        listener(status);
      } catch {
        // A faulty listener must not stop the manager.
      }
    }
  }
}

function keyOf(config: ConnectorConfig): string {
  return JSON.stringify(config);
}
