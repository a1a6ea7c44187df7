/**
 * Each platform's background work (its simulated server's timers, its connection's timers and
 * callbacks, the events it delivers) runs under supervision: an exception there is caught where
 * the work was scheduled (`guardedClock`, the session's event delivery, the connection manager)
 * and reported here with the platform it belongs to. The supervisor logs it, takes that platform
 * down — its state becomes "failed" with a reason the live page shows — and brings it up again
 * after a backoff (server/connectors/backoff.ts), longer each time it fails again soon after.
 * Every other platform, and the API, carries on. See docs/decisions/0033-contain-platform-failures.md
 * for why there is no process-wide catch-all instead.
 */
import type { FastifyBaseLogger } from "fastify";
import { backoffDelay, type BackoffPolicy } from "../../../connectors/backoff.ts";

export interface SupervisedPlatforms {
  /** Takes the platform down now: closes its connection, stops its simulated server. */
  takeDown(platformId: string): void;
  /** Brings it up again from its saved settings (if it still exists and is enabled). */
  bringUp(platformId: string): void;
  /** Its state changed (down now, or up again): tell listeners. */
  changed(platformId: string): void;
}

interface Failure {
  failures: number;
  lastFaultAt: number;
  reason: string;
  restart: ReturnType<typeof setTimeout> | null;
}

export class PlatformSupervisor {
  private readonly records = new Map<string, Failure>();
  private stopped = false;

  constructor(
    private readonly log: FastifyBaseLogger,
    private readonly backoff: BackoffPolicy,
    private readonly random: () => number,
    private readonly platforms: SupervisedPlatforms,
  ) {}

  /**
   * An unexpected failure in the platform's background work. Never throws (it is called from
   * where a throw would reach the event loop). A platform already down ignores further reports.
   */
  fault(platformId: string, error: unknown): void {
    try {
      if (this.stopped || this.isDown(platformId)) return;
      const now = Date.now();
      const previous = this.records.get(platformId);
      // A platform that ran longer than the longest backoff since its last failure starts over from the shortest delay.
      const failures = previous && now - previous.lastFaultAt < 2 * this.backoff.maxMs ? previous.failures + 1 : 1;
      const delay = backoffDelay(failures, this.backoff, this.random);
      const record: Failure = {
        failures,
        lastFaultAt: now,
        reason: `Toolbox stopped this platform after an unexpected error and restarts it in ${seconds(delay)}. The server log has the details.`,
        restart: null,
      };
      record.restart = setTimeout(() => {
        record.restart = null;
        if (this.stopped) return;
        this.log.info({ platformId, failures }, "restarting trade platform after its failure");
        this.platforms.bringUp(platformId);
      }, delay);
      record.restart.unref();
      this.records.set(platformId, record);
      this.log.error({ err: error, platformId, failures, restartInMs: delay }, "trade platform failed; it is stopped and restarted after a backoff");
      this.platforms.takeDown(platformId);
      this.platforms.changed(platformId);
    } catch (secondary) {
      // Taking the platform down failed too: say so, and still never throw.
      this.log.error({ err: secondary, platformId }, "could not take down a failed trade platform");
    }
  }

  /** Down after a failure, waiting for its restart. */
  isDown(platformId: string): boolean {
    return this.records.get(platformId)?.restart != null;
  }

  /** Why the platform is down, in a dealer's words; null when it is not. */
  reason(platformId: string): string | null {
    const record = this.records.get(platformId);
    return record?.restart ? record.reason : null;
  }

  /** The platform was deleted: no restart. */
  forget(platformId: string): void {
    const record = this.records.get(platformId);
    if (record?.restart) clearTimeout(record.restart);
    this.records.delete(platformId);
  }

  stop(): void {
    this.stopped = true;
    for (const id of [...this.records.keys()]) this.forget(id);
  }
}

function seconds(ms: number): string {
  return ms < 1000 ? "a moment" : `${Math.round(ms / 1000)} s`;
}
