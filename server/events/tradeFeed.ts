/**
 * The trade feed: every platform this node's runtime connects has its connector's trade events
 * published on the bus as `trade` events of its organization and platform (./platformFeed.ts),
 * so the trade history store, the blotter's live stream and later the copier follow the bus and
 * never a connector. A platform removed (or disabled: its connector ends its stream) stops.
 */
import type { TradePlatformConnector } from "../connectors/connector.ts";
import type { PlatformRef } from "../modules/tradePlatforms/runtime/types.ts";
import type { EventBus } from "./bus.ts";
import { PlatformFeed, type FeedLogger, type FeedStatus, type PlatformFeedOptions } from "./platformFeed.ts";

export type { FeedLogger, FeedPhase, FeedStatus } from "./platformFeed.ts";

export interface TradeFeedOptions {
  bus: EventBus;
  log?: FeedLogger;
  /** First retry delay after a failure; 1 s by default. */
  retryDelayMs?: number;
  /** Events read from a connector but not yet on the bus before reading waits; 20,000 by default (about a second at the busiest). */
  maxQueued?: number;
}

const quiet: FeedLogger = { info: () => {}, warn: () => {}, error: () => {} };

export class TradeFeed {
  private readonly platforms = new Map<string, PlatformFeed>();
  private readonly options: PlatformFeedOptions;

  constructor(options: TradeFeedOptions) {
    this.options = { log: quiet, retryDelayMs: 1000, maxQueued: 20_000, ...options };
  }

  /**
   * A platform is connected: publish its events. The same connector again (a reconnect) resumes
   * where the feed stopped; a different one (new settings, a restart) starts from now after a gap.
   */
  attach(platform: PlatformRef, connector: TradePlatformConnector): void {
    const existing = this.platforms.get(platform.id);
    if (existing && existing.connector === connector && !existing.stopped) {
      existing.resume();
      return;
    }
    if (existing) void existing.stop();
    const feed = new PlatformFeed(platform, connector, this.options);
    this.platforms.set(platform.id, feed);
    feed.resume();
  }

  /** The platform was removed: stop publishing its events. */
  async detach(platformId: string): Promise<void> {
    const feed = this.platforms.get(platformId);
    this.platforms.delete(platformId);
    await feed?.stop();
  }

  async stopAll(): Promise<void> {
    const all = [...this.platforms.values()];
    this.platforms.clear();
    await Promise.all(all.map((feed) => feed.stop()));
  }

  status(platformId: string): FeedStatus | undefined {
    return this.platforms.get(platformId)?.status();
  }
}
