/**
 * The trading accounts mirror: keeps `trading_accounts` in line with each connected platform, so
 * the accounts list is a database query (fast at 100,000 accounts) instead of a walk over the
 * platforms.
 *
 * Per platform, one loop:
 *  1. subscribe to the connector's trade events first (from "now"), then page through
 *     listAccounts into the table in multi-row upserts, then remove the rows the sync did not
 *     write (accounts gone from the platform);
 *  2. follow the stream: `accountChanged` events (settings, balance, credit) are upserts, batched
 *     under load; position events mark the account for a figures refresh (equity and margin move
 *     with trades, and the platforms do not send those as account events);
 *  3. a stream that ends (the connector was disconnected on purpose) waits for the next
 *     `attach`, which resumes from the last applied sequence on the same connector, or syncs
 *     fully on a new one; `resyncRequired` means a full sync; other failures retry with backoff.
 * Every few minutes a refresh pass re-reads all accounts (prices move equity without events);
 * it never overwrites a row a live event wrote after the page was read.
 */
import type { TradeEvent, TradeEventType } from "../../core/trading/index.ts";
import type { TradePlatformConnector, TradeEventStream } from "../connectors/connector.ts";
import { isConnectorError } from "../connectors/errors.ts";
import type { Db } from "../db/client.ts";
import type { MirroredPlatform } from "./runtime.ts";
import { columnsOf, type AccountColumns } from "./rows.ts";
import { analyzeAccounts, databaseNow, removeAccountsNotWrittenSince, upsertAccounts } from "./store.ts";

export interface MirrorLogger {
  info(object: object, message: string): void;
  warn(object: object, message: string): void;
  error(object: object, message: string): void;
}

export interface AccountMirrorOptions {
  db: Db;
  log?: MirrorLogger;
  /** Accounts per listAccounts page and per upsert (the connectors allow up to 1000). */
  pageSize?: number;
  /** How often accounts touched by trades get their figures re-read; 0 turns it off. */
  figuresRefreshMs?: number;
  /** At most this many accounts per figures refresh. */
  figuresRefreshBatch?: number;
  /** How often every account is re-read (equity moves with prices); 0 turns it off. */
  fullRefreshMs?: number;
  /** First retry delay after a failure; doubles up to 30 s. */
  retryDelayMs?: number;
}

export type MirrorPhase = "syncing" | "live" | "waiting" | "retrying" | "stopped";

export interface MirrorStatus {
  platformId: string;
  phase: MirrorPhase;
  /** Accounts written by the last complete sync. */
  accounts: number;
  /** Full syncs completed (1 after the first; more after missed events or a new connector). */
  syncs: number;
  /** The last trade event applied. */
  lastSequence: number;
  lastSyncMs: number | null;
  lastError: string | null;
}

const silent: MirrorLogger = { info: () => {}, warn: () => {}, error: () => {} };
const POSITION_EVENTS = new Set<TradeEventType>(["positionOpened", "positionModified", "positionClosed"]);
const MAX_EVENT_BATCH = 5000;
const ANALYZE_AFTER = 10_000;

export class AccountMirror {
  private readonly platforms = new Map<string, PlatformMirror>();
  private readonly options: Required<AccountMirrorOptions>;

  constructor(options: AccountMirrorOptions) {
    this.options = {
      log: silent,
      pageSize: 1000,
      figuresRefreshMs: 5000,
      figuresRefreshBatch: 500,
      fullRefreshMs: 300_000,
      retryDelayMs: 1000,
      ...options,
    };
  }

  /**
   * A platform is connected: mirror it. The same connector again (a reconnect) resumes where the
   * mirror stopped; a different one (new settings) starts over with a full sync.
   */
  attach(platform: MirroredPlatform, connector: TradePlatformConnector): void {
    const existing = this.platforms.get(platform.id);
    if (existing && existing.connector === connector && !existing.stopped) {
      existing.resume();
      return;
    }
    if (existing) void existing.stop();
    const mirror = new PlatformMirror(platform, connector, this.options);
    this.platforms.set(platform.id, mirror);
    mirror.resume();
  }

  /** The platform was removed or disabled: stop following it (its rows go with the platform row). */
  async detach(platformId: string): Promise<void> {
    const mirror = this.platforms.get(platformId);
    this.platforms.delete(platformId);
    await mirror?.stop();
  }

  async stopAll(): Promise<void> {
    const all = [...this.platforms.values()];
    this.platforms.clear();
    await Promise.all(all.map((m) => m.stop()));
  }

  status(platformId: string): MirrorStatus | undefined {
    return this.platforms.get(platformId)?.status();
  }

  /**
   * Resolves once the platform's first full sync has landed (for tests and the benchmark); waits
   * for the platform to be attached first (its connection may still be opening).
   */
  async whenSynced(platformId: string, timeoutMs = 60_000): Promise<MirrorStatus> {
    const deadline = Date.now() + timeoutMs;
    let mirror = this.platforms.get(platformId);
    while (!mirror) {
      if (Date.now() > deadline) throw new Error(`Platform ${platformId} was not attached within ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 10));
      mirror = this.platforms.get(platformId);
    }
    await withTimeout(mirror.synced, Math.max(1, deadline - Date.now()), `Platform ${platformId} did not sync within ${timeoutMs} ms`);
    return mirror.status();
  }

  /** Resolves once every event up to the connector's present has been applied. */
  async whenCaughtUp(platformId: string, timeoutMs = 10_000): Promise<void> {
    const mirror = this.platforms.get(platformId);
    if (!mirror) throw new Error(`Platform ${platformId} is not mirrored`);
    await mirror.synced;
    const probe = mirror.connector.subscribe();
    const target = probe.lastSequence;
    probe.close();
    const deadline = Date.now() + timeoutMs;
    while (mirror.status().lastSequence < target) {
      if (Date.now() > deadline) throw new Error(`Platform ${platformId}: the mirror is behind (${mirror.status().lastSequence} < ${target})`);
      await new Promise((r) => setTimeout(r, 5));
    }
  }

  /** Re-read accounts now (after a change made through Toolbox). Best effort: failures are logged. */
  async refresh(platformId: string, logins: readonly string[]): Promise<void> {
    await this.platforms.get(platformId)?.refreshAccounts(logins);
  }
}

class PlatformMirror {
  stopped = false;
  readonly synced: Promise<void>;
  private markSynced!: () => void;
  private phase: MirrorPhase = "waiting";
  private running: Promise<void> | null = null;
  private stream: TradeEventStream | null = null;
  private needsFullSync = true;
  private lastSequence = 0;
  private accounts = 0;
  private syncs = 0;
  private lastSyncMs: number | null = null;
  private lastError: string | null = null;
  private failures = 0;
  private wake: (() => void) | null = null;
  private readonly buffer: TradeEvent[] = [];
  private flushing: Promise<void> | null = null;
  private flushFailure: unknown = null;
  private readonly dirty = new Set<string>();
  private refreshingFigures = false;
  private refreshingAll = false;
  private readonly timers: ReturnType<typeof setInterval>[] = [];
  private readonly db: Db;
  private readonly log: MirrorLogger;

  constructor(
    readonly platform: MirroredPlatform,
    readonly connector: TradePlatformConnector,
    private readonly options: Required<AccountMirrorOptions>,
  ) {
    this.db = options.db;
    this.log = options.log;
    this.synced = new Promise((resolve) => (this.markSynced = resolve));
    this.synced.catch(() => undefined);
    if (options.figuresRefreshMs > 0) this.every(options.figuresRefreshMs, () => this.refreshDirtyFigures());
    if (options.fullRefreshMs > 0) this.every(options.fullRefreshMs, () => this.refreshAll());
  }

  status(): MirrorStatus {
    return {
      platformId: this.platform.id,
      phase: this.phase,
      accounts: this.accounts,
      syncs: this.syncs,
      lastSequence: this.lastSequence,
      lastSyncMs: this.lastSyncMs,
      lastError: this.lastError,
    };
  }

  /** Start the loop, or cut a retry wait short. */
  resume(): void {
    if (this.stopped) return;
    if (this.wake) {
      this.wake();
      return;
    }
    this.running ??= this.run().finally(() => (this.running = null));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.phase = "stopped";
    for (const timer of this.timers.splice(0)) clearInterval(timer);
    this.stream?.close();
    this.wake?.();
    await this.running;
    while (this.flushing) await this.flushing;
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      try {
        if (this.needsFullSync) {
          // Subscribe before reading, so nothing that happens during the sync is missed.
          this.stream = this.connector.subscribe();
          this.lastSequence = this.stream.lastSequence;
          await this.fullSync();
          this.needsFullSync = false;
          this.markSynced();
        } else {
          this.stream = this.connector.subscribe(this.lastSequence);
        }
        this.phase = "live";
        this.failures = 0;
        this.lastError = null;
        await this.follow(this.stream);
        if (this.stopped) return;
        // The connector was disconnected on purpose; the next attach() resumes.
        this.phase = "waiting";
        return;
      } catch (error) {
        this.stream?.close();
        this.stream = null;
        if (this.stopped) return;
        if (isConnectorError(error, "resyncRequired")) {
          this.log.warn({ platformId: this.platform.id }, "trade events were missed; resyncing the accounts mirror");
          this.needsFullSync = true;
          continue;
        }
        this.failures++;
        this.lastError = error instanceof Error ? error.message : String(error);
        this.phase = "retrying";
        const delay = Math.min(30_000, this.options.retryDelayMs * 2 ** Math.min(this.failures - 1, 5));
        this.log.warn({ platformId: this.platform.id, err: this.lastError, retryInMs: delay }, "accounts mirror failed; retrying");
        await this.pause(delay);
      }
    }
  }

  private pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      timer.unref?.();
      const self = this;
      function done() {
        clearTimeout(timer);
        self.wake = null;
        resolve();
      }
      this.wake = done;
    });
  }

  private async fullSync(): Promise<void> {
    this.phase = "syncing";
    const started = performance.now();
    const since = await databaseNow(this.db);
    const written = await this.pageAll();
    if (this.stopped) return;
    const removed = await removeAccountsNotWrittenSince(this.db, this.platform.id, since);
    // A large first load leaves the planner without statistics until autovacuum comes by.
    if (written >= ANALYZE_AFTER) await analyzeAccounts(this.db);
    this.accounts = written;
    this.syncs++;
    this.lastSyncMs = Math.round(performance.now() - started);
    this.log.info(
      { platformId: this.platform.id, accounts: written, removed, ms: this.lastSyncMs },
      "accounts mirror synced",
    );
  }

  /**
   * Every account, page by page; the next page is read while the previous one is written. A row a
   * live event wrote after its page was read is left alone.
   */
  private async pageAll(): Promise<number> {
    let written = 0;
    let readAt = await databaseNow(this.db);
    let page = await this.connector.listAccounts({ limit: this.options.pageSize });
    for (;;) {
      if (this.stopped) return written;
      const nextReadAt = page.nextCursor ? await databaseNow(this.db) : null;
      const next = page.nextCursor ? this.connector.listAccounts({ cursor: page.nextCursor, limit: this.options.pageSize }) : null;
      // A failed read of the next page must not go unhandled while this one is written.
      next?.catch(() => undefined);
      await upsertAccounts(this.db, this.platform, page.items.map(columnsOf), { onlyIfOlderThan: readAt });
      written += page.items.length;
      if (!next || !nextReadAt) return written;
      page = await next;
      readAt = nextReadAt;
    }
  }

  private async follow(stream: TradeEventStream): Promise<void> {
    this.flushFailure = null;
    for await (const event of stream) {
      this.buffer.push(event);
      this.kick();
    }
    while (this.flushing) await this.flushing;
    if (this.flushFailure) {
      const failure = this.flushFailure;
      this.flushFailure = null;
      throw failure;
    }
  }

  private kick(): void {
    if (this.flushing) return;
    this.flushing = this.flush().finally(() => {
      this.flushing = null;
      // An event may have arrived after the last batch was taken but before this ran.
      if (this.buffer.length > 0 && !this.flushFailure && !this.stopped) this.kick();
    });
  }

  /** Writes what has arrived, as one upsert per batch; under load batches grow on their own. */
  private async flush(): Promise<void> {
    try {
      while (this.buffer.length > 0 && !this.stopped) {
        const batch = this.buffer.splice(0, MAX_EVENT_BATCH);
        const changed: AccountColumns[] = [];
        for (const event of batch) {
          if (event.type === "accountChanged") {
            changed.push(columnsOf(event.account));
            this.dirty.delete(event.login);
          } else if (POSITION_EVENTS.has(event.type)) {
            this.dirty.add(event.login);
          }
        }
        await upsertAccounts(this.db, this.platform, changed);
        this.lastSequence = batch[batch.length - 1]!.sequence;
      }
    } catch (error) {
      // Resume from the last applied event: drop what is buffered, end the stream, let run() retry.
      this.buffer.length = 0;
      this.flushFailure = error;
      this.stream?.close();
    }
  }

  async refreshAccounts(logins: readonly string[]): Promise<void> {
    if (this.stopped || this.connector.state !== "connected" || logins.length === 0) return;
    const accounts: AccountColumns[] = [];
    const readAt = await databaseNow(this.db);
    const queue = [...new Set(logins)];
    const worker = async () => {
      for (let login = queue.pop(); login !== undefined; login = queue.pop()) {
        try {
          accounts.push(columnsOf(await this.connector.getAccount(login)));
        } catch (error) {
          if (!isConnectorError(error, "notFound")) throw error;
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(8, queue.length) }, worker));
    await upsertAccounts(this.db, this.platform, accounts, { onlyIfOlderThan: readAt });
  }

  private async refreshDirtyFigures(): Promise<void> {
    if (this.refreshingFigures || this.phase !== "live" || this.dirty.size === 0) return;
    this.refreshingFigures = true;
    const logins = [...this.dirty].slice(0, this.options.figuresRefreshBatch);
    for (const login of logins) this.dirty.delete(login);
    try {
      await this.refreshAccounts(logins);
    } catch (error) {
      for (const login of logins) this.dirty.add(login);
      this.log.warn({ platformId: this.platform.id, err: (error as Error).message }, "account figures refresh failed");
    } finally {
      this.refreshingFigures = false;
    }
  }

  private async refreshAll(): Promise<void> {
    if (this.refreshingAll || this.phase !== "live" || this.connector.state !== "connected") return;
    this.refreshingAll = true;
    try {
      this.accounts = await this.pageAll();
    } catch (error) {
      this.log.warn({ platformId: this.platform.id, err: (error as Error).message }, "accounts refresh failed");
    } finally {
      this.refreshingAll = false;
    }
  }

  private every(ms: number, task: () => Promise<void>): void {
    const timer = setInterval(() => void task(), ms);
    timer.unref?.();
    this.timers.push(timer);
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(message)), ms);
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}
