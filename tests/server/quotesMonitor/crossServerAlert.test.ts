/**
 * A cross-server alert is one alert per instrument and pair of servers (ordered), whichever of the
 * two quotes higher (docs/quotes-monitor.md#alert-rules): when the higher server and the lower
 * swap while the difference stays over the threshold, nothing is cleared or raised again; when the
 * difference comes back within it, the one alert clears.
 */
import { expect, it } from "vitest";
import { dailySessions, type TradeSymbol } from "../../../core/trading/index.ts";
import { ManualClock } from "../../../server/connectors/clock.ts";
import type { TradePlatformConnector } from "../../../server/connectors/connector.ts";
import { QuoteBuffer } from "../../../server/connectors/quotes/quoteStream.ts";
import type { EventBus } from "../../../server/events/bus.ts";
import type { QuoteAlertBusEvent } from "../../../server/events/types.ts";
import { QuotesMonitor } from "../../../server/modules/quotesMonitor/monitor/monitor.ts";

const START = Date.parse("2026-11-25T12:00:00Z");
const XAUUSD = { name: "XAUUSD", path: "Metals\\XAUUSD", digits: 2, sessions: dailySessions([0, 1, 2, 3, 4, 5, 6]) } as unknown as TradeSymbol;
// Ids whose order is not the order the test first quotes them in (the higher one first is "b").
const PLATFORMS = ["b-platform", "a-platform"] as const;

it("keeps one cross-server alert for the pair when the higher server swaps, and clears it once", async () => {
  const clock = new ManualClock(START);
  const feeds = new Map<string, QuoteBuffer>();
  const connectorOf = (id: string) =>
    ({
      listSymbols: async () => [XAUUSD],
      serverTime: async () => ({ time: clock.now(), timeZoneOffsetMinutes: 0 }),
      quotes: () => {
        const feed = new QuoteBuffer({});
        feeds.set(id, feed);
        return feed;
      },
    }) as unknown as TradePlatformConnector;
  let connected: ((platform: { id: string }, connector: TradePlatformConnector) => void) | null = null;
  const published: { event: QuoteAlertBusEvent; id: string }[] = [];
  const monitor = new QuotesMonitor({
    platforms: { onConnected: (listener) => ((connected = listener as never), () => {}), state: () => ({ state: "connected" }) as never },
    sources: {
      assigned: async () => PLATFORMS.map((id) => ({ id, organizationId: "o1", name: id, type: "MT5" })),
      rules: async () => [
        {
          id: "r1",
          organizationId: "o1",
          name: "Gold apart",
          kind: "crossServer",
          enabled: true,
          platformIds: "all",
          symbolMask: "*",
          severity: "warning",
          cooldownSeconds: 0,
          differencePoints: 10,
          createdAt: "",
          updatedAt: "",
        },
      ],
    },
    bus: {
      publish: async (event: QuoteAlertBusEvent, options: { ids: string[] }) => void published.push({ event, id: options.ids[0]! }),
      subscribe: () => ({ close() {} }),
    } as unknown as EventBus,
    clock,
    log: { warn: () => {}, error: () => {} } as never,
    evaluateEveryMs: 1_000,
    refreshEveryMs: 60_000,
  });
  await monitor.start();
  for (const id of PLATFORMS) connected!({ id }, connectorOf(id));
  await clock.advance(0);
  const quote = async (bids: Record<(typeof PLATFORMS)[number], number>) => {
    for (const id of PLATFORMS) feeds.get(id)!.push([{ symbol: "XAUUSD", bid: bids[id], ask: bids[id] + 0.1, time: clock.now() }]);
    await clock.advance(1_000); // the ticks are taken in, then the rules judged
  };

  await quote({ "b-platform": 2001, "a-platform": 2000 }); // 100 points apart, b higher
  expect(published.map((p) => p.event.state)).toEqual(["raised"]);
  const raised = published[0]!;
  expect(raised.event).toMatchObject({ platformId: "a-platform", otherPlatformId: "b-platform", symbol: "XAUUSD", kind: "crossServer" });
  expect(raised.event.message).toMatch(/XAUUSD differs by 100 points between a-platform and b-platform \(b-platform higher; threshold 10\)/);
  expect(monitor.rowsOf("o1").map((r) => r.alerts)).toEqual([["crossServer"], ["crossServer"]]);

  await quote({ "b-platform": 2000, "a-platform": 2001.5 }); // 150 apart, a higher now: the same alert
  await quote({ "b-platform": 1999, "a-platform": 2001 });
  expect(published).toHaveLength(1);

  await quote({ "b-platform": 2000, "a-platform": 2000.05 }); // 5 points: within
  expect(published.map((p) => p.event.state)).toEqual(["raised", "cleared"]);
  expect(published[1]!.event).toMatchObject({ platformId: "a-platform", otherPlatformId: "b-platform", episode: raised.event.episode });
  expect(published[1]!.id).toBe(raised.id.replace(/raised$/, "cleared"));
  expect(monitor.rowsOf("o1").map((r) => r.alerts)).toEqual([[], []]);
  monitor.stop();
});
