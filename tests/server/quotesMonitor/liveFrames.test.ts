/**
 * The live stream's frames (docs/quotes-monitor.md, API): the first frame has every row whole; then
 * a moved price travels as a compact tick (no whole row), only for the row that ticked, once; about
 * once a second the figures that changed travel as figures; a stream opened later starts whole.
 */
import { expect, it } from "vitest";
import { dailySessions, type TradeSymbol } from "../../../core/trading/index.ts";
import { ManualClock } from "../../../server/connectors/clock.ts";
import type { TradePlatformConnector } from "../../../server/connectors/connector.ts";
import { QuoteBuffer } from "../../../server/connectors/quotes/quoteStream.ts";
import type { EventBus } from "../../../server/events/bus.ts";
import { LiveCursor } from "../../../server/modules/quotesMonitor/monitor/live.ts";
import { QuotesMonitor } from "../../../server/modules/quotesMonitor/monitor/monitor.ts";

const START = Date.parse("2026-11-25T12:00:00Z");
const symbol = (name: string) => ({ name, path: `Forex\\${name}`, digits: 5, sessions: dailySessions([0, 1, 2, 3, 4, 5, 6]) }) as unknown as TradeSymbol;

it("sends whole rows first, then ticks for moved prices and figures once a second", async () => {
  const clock = new ManualClock(START);
  let feed: QuoteBuffer | null = null;
  const connector = {
    listSymbols: async () => [symbol("EURUSD"), symbol("GBPUSD")],
    serverTime: async () => ({ time: clock.now(), timeZoneOffsetMinutes: 0 }),
    quotes: () => (feed = new QuoteBuffer({})),
  } as unknown as TradePlatformConnector;
  let connected: ((platform: { id: string }, connector: TradePlatformConnector) => void) | null = null;
  const monitor = new QuotesMonitor({
    platforms: { onConnected: (listener) => ((connected = listener as never), () => {}), state: () => ({ state: "connected" }) as never },
    sources: { assigned: async () => [{ id: "p1", organizationId: "o1", name: "P1", type: "MT5" }], rules: async () => [] },
    bus: { publish: async () => {}, subscribe: () => ({ close() {} }) } as unknown as EventBus,
    clock,
    log: { warn: () => {}, error: () => {} } as never,
    refreshEveryMs: 60_000,
  });
  await monitor.start();
  connected!({ id: "p1" }, connector);
  await clock.advance(0);

  const cursor = new LiveCursor();
  const first = monitor.changesSince(cursor, "o1");
  expect(first.rows.map((r) => r.key)).toEqual(["p1:EURUSD", "p1:GBPUSD"]);
  expect(first.ticks).toEqual([]);

  const at = clock.now();
  feed!.push([{ symbol: "EURUSD", bid: 1.1, ask: 1.10012, time: at }]);
  await clock.advance(100);
  const next = monitor.changesSince(cursor, "o1");
  expect(next).toEqual({ rows: [], ticks: [["p1:EURUSD", 1.1, 1.10012, 12, at]], figures: [] });
  expect(monitor.changesSince(cursor, "o1")).toEqual({ rows: [], ticks: [], figures: [] });

  await clock.advance(1_000);
  const second = monitor.changesSince(cursor, "o1");
  expect(second.rows).toEqual([]);
  expect(second.ticks).toEqual([]);
  expect(second.figures).toEqual([["p1:EURUSD", 1, 12, 12]]);

  // Another stream starts with every row whole, at its latest.
  const later = monitor.changesSince(new LiveCursor(), "o1");
  expect(later.rows.find((r) => r.key === "p1:EURUSD")).toMatchObject({ bid: 1.1, ask: 1.10012, spread: 12, ticksPerMinute: 1, lastTickAt: at });
  monitor.stop();
});
