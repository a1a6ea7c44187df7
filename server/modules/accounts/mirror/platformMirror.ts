/**
 * One platform's mirror loop:
 *  1. subscribe to the connector's trade events first (from "now"), then sync every account
 *     (./sync.ts);
 *  2. follow the stream (./eventApplier.ts);
 *  3. subscribing, resuming and retrying are the platform follower's
 *     (connectors/follow/platformFollower.ts): a stream that ends waits for the next `resume`,
 *     which continues from the last applied sequence on the same connector; `resyncRequired`
 *     means a full sync; other failures retry with the server's backoff, which starts over once
 *     the mirror is live again.
 * Timers re-read the figures of accounts that traded, and every few minutes sync every account
 * again (prices move equity without events), writing only what changed.
 */
import type { TradePlatformConnector } from "../../../connectors/connector.ts";
import { isConnectorError } from "../../../connectors/errors.ts";
import { PlatformFollower, type FollowPhase } from "../../../connectors/follow/platformFollower.ts";
import type { MirroredPlatform } from "../platformPort.ts";
import { EventApplier } from "./eventApplier.ts";
import { columnsOf, type AccountColumns } from "./rows.ts";
import { fullSync, type SyncResult, type SyncTarget } from "./sync.ts";
import type { MirrorPhase, MirrorStatus, ResolvedMirrorOptions } from "./types.ts";
import { nextGeneration, upsertAccounts } from "./writeRepository.ts";

const MIRROR_PHASES: Record<FollowPhase, MirrorPhase> = {
  idle: "waiting",
  catchingUp: "syncing",
  live: "live",
  waiting: "waiting",
  retrying: "retrying",
  stopped: "stopped",
};

export class PlatformMirror {
  /** Settles once the first full sync has landed. */
  readonly synced: Promise<void>;
  private markSynced!: () => void;
  private accounts = 0;
  private syncs = 0;
  private lastSyncMs: number | null = null;
  private refreshingFigures = false;
  /** Full syncs run one at a time; this settles when the last one queued has. */
  private syncQueue: Promise<unknown> = Promise.resolve();
  private syncing = 0;
  private readonly timers: ReturnType<typeof setInterval>[] = [];
  private readonly events: EventApplier;
  private readonly target: SyncTarget;
  private readonly follower: PlatformFollower;

  constructor(
    readonly platform: MirroredPlatform,
    readonly connector: TradePlatformConnector,
    private readonly options: ResolvedMirrorOptions,
  ) {
    this.synced = new Promise((resolve) => (this.markSynced = resolve));
    this.synced.catch(() => undefined);
    this.events = new EventApplier(
      (accounts) => upsertAccounts(options.db, platform, accounts),
      () => this.follower.closeStream(),
    );
    this.follower = new PlatformFollower(
      connector,
      {
        position: () => this.events.lastSequence,
        // Subscribed before reading, so nothing that happens during the sync is missed.
        startFresh: (from) => {
          this.events.lastSequence = from;
          return this.sync();
        },
        live: () => this.markSynced(),
        event: (event) => this.events.push(event),
        drained: () => this.events.settled(),
        resyncing: () => options.log.warn({ platformId: platform.id }, "trade events were missed; resyncing the accounts mirror"),
        retrying: (err, retryInMs) => options.log.warn({ platformId: platform.id, err, retryInMs }, "accounts mirror failed; retrying"),
      },
      { retryDelayMs: options.retryDelayMs, recoveredWhen: "live" },
    );
    this.target = { db: options.db, platform, connector, pageSize: options.pageSize, stopped: () => this.stopped };
    if (options.figuresRefreshMs > 0) this.every(options.figuresRefreshMs, () => this.refreshDirtyFigures());
    if (options.fullRefreshMs > 0) this.every(options.fullRefreshMs, () => this.refreshAll());
  }

  status(): MirrorStatus {
    return {
      platformId: this.platform.id,
      phase: this.phase,
      accounts: this.accounts,
      syncs: this.syncs,
      lastSequence: this.events.lastSequence,
      lastSyncMs: this.lastSyncMs,
      lastError: this.follower.lastError,
    };
  }

  get stopped(): boolean {
    return this.follower.stopped;
  }

  private get phase(): MirrorPhase {
    return MIRROR_PHASES[this.follower.phase];
  }

  /** Start the loop, or cut a retry wait short. */
  resume(): void {
    this.follower.resume();
  }

  async stop(): Promise<void> {
    for (const timer of this.timers.splice(0)) clearInterval(timer);
    await this.follower.stop();
    await this.events.stop();
  }

  /** A full sync, after any sync already running (answers null when the mirror stopped meanwhile). */
  sync(): Promise<SyncResult | null> {
    this.syncing++;
    const run = this.syncQueue.then(() => this.syncNow()).finally(() => this.syncing--);
    this.syncQueue = run.catch(() => undefined);
    return run;
  }

  private async syncNow(): Promise<SyncResult | null> {
    if (this.stopped) return null;
    const started = performance.now();
    const result = await fullSync(this.target);
    if (!result) return null;
    this.accounts = result.listed;
    this.syncs++;
    this.lastSyncMs = Math.round(performance.now() - started);
    this.options.log.info({ platformId: this.platform.id, ...result, ms: this.lastSyncMs }, "accounts mirror synced");
    return result;
  }

  /** Re-reads these accounts from the platform; a row a live event wrote meanwhile is left alone. */
  async refreshAccounts(logins: readonly string[]): Promise<void> {
    if (this.stopped || this.connector.state !== "connected" || logins.length === 0) return;
    const { db } = this.options;
    const accounts: AccountColumns[] = [];
    const readAt = await nextGeneration(db);
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
    await upsertAccounts(db, this.platform, accounts, { readAt });
  }

  private async refreshDirtyFigures(): Promise<void> {
    const { dirty } = this.events;
    if (this.refreshingFigures || this.phase !== "live" || dirty.size === 0) return;
    this.refreshingFigures = true;
    const logins = [...dirty].slice(0, this.options.figuresRefreshBatch);
    for (const login of logins) dirty.delete(login);
    try {
      await this.refreshAccounts(logins);
    } catch (error) {
      for (const login of logins) dirty.add(login);
      this.options.log.warn({ platformId: this.platform.id, err: (error as Error).message }, "account figures refresh failed");
    } finally {
      this.refreshingFigures = false;
    }
  }

  /** The periodic sync; skipped while another runs. */
  private async refreshAll(): Promise<void> {
    if (this.syncing > 0 || this.phase !== "live" || this.connector.state !== "connected") return;
    try {
      await this.sync();
    } catch (error) {
      this.options.log.warn({ platformId: this.platform.id, err: (error as Error).message }, "accounts refresh failed");
    }
  }

  private every(ms: number, task: () => Promise<void>): void {
    const timer = setInterval(() => void task(), ms);
    timer.unref?.();
    this.timers.push(timer);
  }
}
