/**
 * The Quotes Monitor's periods when its plugin passes none (options present but undefined, as
 * `quotesMonitorPlugin` passes them): the documented 1 s judging and 5 s re-reading, not a timer
 * of 1 ms. With such a timer the monitor read its platforms and rules from the database about a
 * hundred times a second on every node (found by the blotter bench, docs/benchmarks.md).
 */
import { expect, it } from "vitest";
import { ManualClock } from "../../../server/connectors/clock.ts";
import type { EventBus } from "../../../server/events/bus.ts";
import { QuotesMonitor } from "../../../server/modules/quotesMonitor/monitor/monitor.ts";

it("reads its sources once per 5 s and judges once a second when the plugin leaves the periods unset", async () => {
  const clock = new ManualClock();
  const periods: number[] = [];
  const recording = {
    now: () => clock.now(),
    setTimeout: (callback: () => void, ms: number) => {
      periods.push(ms);
      return clock.setTimeout(callback, ms);
    },
    clearTimeout: clock.clearTimeout.bind(clock),
  };
  let reads = 0;
  const monitor = new QuotesMonitor({
    platforms: { onConnected: () => () => {}, state: () => ({ status: "connected" }) as never },
    sources: {
      assigned: async () => (reads++, []),
      rules: async () => [],
    },
    bus: { subscribe: () => ({ close() {} }) } as unknown as EventBus,
    clock: recording,
    log: { warn: () => {}, error: () => {} } as never,
    evaluateEveryMs: undefined,
    refreshEveryMs: undefined,
    serverTimeEveryMs: undefined,
  });
  await monitor.start();
  expect(periods.sort((a, b) => a - b)).toEqual([1_000, 5_000]);
  await clock.advance(10_000);
  monitor.stop();
  expect(reads).toBe(3);
});
