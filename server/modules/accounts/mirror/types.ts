/** The accounts mirror's options, status and logger, shared by its parts. */
import type { Db } from "../../../db/client.ts";

export interface MirrorLogger {
  info(object: object, message: string): void;
  warn(object: object, message: string): void;
  error(object: object, message: string): void;
}

export interface AccountMirrorOptions {
  db: Db;
  log?: MirrorLogger;
  /**
   * Accounts per listAccounts page and per upsert (the connectors allow up to 1000). 250 by
   * default: reading, converting and writing a page then stays well under 50 ms of the event loop
   * (a 1,000-account page from the in-process simulated server held it for 100–250 ms on a busy
   * two-core machine), and the next page is read while one is written, so a sync takes no longer.
   */
  pageSize?: number;
  /** How often accounts touched by trades get their figures re-read; 0 turns it off. */
  figuresRefreshMs?: number;
  /** At most this many accounts per figures refresh. */
  figuresRefreshBatch?: number;
  /** How often every account is synced again (equity moves with prices; only changes are written); 0 turns it off. */
  fullRefreshMs?: number;
  /** First retry delay after a failure; then the platform follower's backoff (doubling, jittered) up to 30 s. */
  retryDelayMs?: number;
}

export type ResolvedMirrorOptions = Required<AccountMirrorOptions>;

export const MIRROR_DEFAULTS = {
  log: { info: () => {}, warn: () => {}, error: () => {} } satisfies MirrorLogger,
  pageSize: 250,
  figuresRefreshMs: 5000,
  figuresRefreshBatch: 500,
  fullRefreshMs: 300_000,
  retryDelayMs: 1000,
};

export type MirrorPhase = "syncing" | "live" | "waiting" | "retrying" | "stopped";

export interface MirrorStatus {
  platformId: string;
  phase: MirrorPhase;
  /** Accounts the platform listed in the last complete sync. */
  accounts: number;
  /** Full syncs completed (1 after the first; more after missed events or a new connector). */
  syncs: number;
  /** The last trade event applied. */
  lastSequence: number;
  lastSyncMs: number | null;
  lastError: string | null;
}
