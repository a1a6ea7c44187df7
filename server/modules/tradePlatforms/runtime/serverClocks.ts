/**
 * Each connected platform's clock: read when it connects and every `refreshMs` after (60 s by
 * default); in between, the server's time is the local time plus the skew last measured, shown
 * with the server's own UTC offset.
 */
import type { TradePlatformConnector } from "../../../connectors/connector.ts";
import { systemClock } from "../../../connectors/clock.ts";
import { withTimeout } from "../../../connectors/wire/timeout.ts";
import { formatServerTime } from "./timeZone.ts";

interface ServerClock {
  /** Server time minus local time, ms. */
  skewMs: number;
  offsetMinutes: number;
}

export interface ClockSource {
  /** The connected platforms' connectors, to read again. */
  connected(): Iterable<[platformId: string, connector: TradePlatformConnector]>;
  /** Whether `connector` is still the platform's live one (a reading of a replaced connection is dropped). */
  isCurrent(platformId: string, connector: TradePlatformConnector): boolean;
  /** The platform's first reading came in (its state can now carry the server time). */
  firstReading(platformId: string): void;
}

export class ServerClocks {
  private readonly clocks = new Map<string, ServerClock>();
  private timer: ReturnType<typeof setInterval> | null = null;

  constructor(private readonly source: ClockSource) {}

  start(refreshMs: number): void {
    this.timer = setInterval(() => {
      for (const [id, connector] of this.source.connected()) void this.read(id, connector);
    }, refreshMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** Reads the platform's clock; a failure leaves it unread until the next refresh. Never rejects. */
  async read(platformId: string, connector: TradePlatformConnector): Promise<void> {
    try {
      const time = await withTimeout(connector.serverTime(), 10_000, systemClock);
      if (!this.source.isCurrent(platformId, connector) || connector.state !== "connected") return;
      const hadClock = this.clocks.has(platformId);
      this.clocks.set(platformId, { skewMs: time.time - Date.now(), offsetMinutes: time.timeZoneOffsetMinutes });
      if (!hadClock) this.source.firstReading(platformId);
    } catch {
      // The next refresh tries again; the state events carry no time meanwhile.
    }
  }

  /** The server's time now, RFC 3339 with its offset; undefined before the first reading. */
  serverTime(platformId: string): string | undefined {
    const clock = this.clocks.get(platformId);
    return clock ? formatServerTime(Date.now() + clock.skewMs, clock.offsetMinutes) : undefined;
  }

  forget(platformId: string): void {
    this.clocks.delete(platformId);
  }
}
