/**
 * The trading accounts mirror: keeps `trading_accounts` in line with each connected platform, so
 * the accounts list is a database query (fast at 100,000 accounts) instead of a walk over the
 * platforms. One loop per platform (./platformMirror.ts): a full sync (./sync.ts), then the live
 * event stream (./eventApplier.ts); the rows are written by ./writes.ts. Why a mirror, and why money
 * never relies on it: docs/decisions/0024-accounts-mirror.md; why it writes only what changed:
 * docs/decisions/0035-mirror-writes-only-what-changed.md.
 */
import type { TradePlatformConnector } from "../../../connectors/connector.ts";
import { systemClock } from "../../../connectors/clock.ts";
import { TimeoutError, withTimeout } from "../../../connectors/wire/timeout.ts";
import type { MirroredPlatform } from "../platformPort.ts";
import { PlatformMirror } from "./platformMirror.ts";
import type { SyncResult } from "./sync.ts";
import { MIRROR_DEFAULTS, type AccountMirrorOptions, type MirrorStatus, type ResolvedMirrorOptions } from "./types.ts";

export class AccountMirror {
  private readonly platforms = new Map<string, PlatformMirror>();
  private readonly options: ResolvedMirrorOptions;

  constructor(options: AccountMirrorOptions) {
    this.options = { ...MIRROR_DEFAULTS, ...options };
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
    try {
      await withTimeout(mirror.synced, Math.max(1, deadline - Date.now()), systemClock);
    } catch (error) {
      if (error instanceof TimeoutError) throw new Error(`Platform ${platformId} did not sync within ${timeoutMs} ms`);
      throw error;
    }
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

  /**
   * Syncs every account of the platform now, as the periodic sync does (after one already
   * running): what the platform listed, and the rows written and removed.
   */
  async resync(platformId: string): Promise<SyncResult> {
    const result = await this.platforms.get(platformId)?.sync();
    if (!result) throw new Error(`Platform ${platformId} is not mirrored`);
    return result;
  }

  /** Re-read accounts now (after a change made through Toolbox). Best effort: failures are logged. */
  async refresh(platformId: string, logins: readonly string[]): Promise<void> {
    await this.platforms.get(platformId)?.refreshAccounts(logins);
  }
}
