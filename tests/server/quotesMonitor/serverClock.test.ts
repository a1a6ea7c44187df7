/**
 * The Quotes Monitor's view of a server's clock (doubt 1 of issue 29): a server whose clock moves
 * to a Saturday shows its forex symbols closed through the monitor's own periodic re-read, with
 * nothing telling it (the simulator's control route also asks for a read at once; that is a
 * shortcut, not what makes it work). And reads that overlap (a slow one from before the move, a
 * quick one after) never let the older answer undo the newer.
 */
import { expect, it } from "vitest";
import { dailySessions, type TradeSymbol } from "../../../core/trading/index.ts";
import { ManualClock } from "../../../server/connectors/clock.ts";
import type { TradePlatformConnector } from "../../../server/connectors/connector.ts";
import { QuoteBuffer } from "../../../server/connectors/quotes/quoteStream.ts";
import type { EventBus } from "../../../server/events/bus.ts";
import { QuotesMonitor } from "../../../server/modules/quotesMonitor/monitor/monitor.ts";

const FRIDAY_NOON = Date.parse("2026-11-27T12:00:00Z");
const SATURDAY_NOON = Date.parse("2026-11-28T12:00:00Z");
const EURUSD = { name: "EURUSD", path: "Forex\\Majors\\EURUSD", digits: 5, sessions: dailySessions([1, 2, 3, 4, 5]) } as unknown as TradeSymbol;

const EURUSD_SILENT = {
  id: "r1",
  organizationId: "o1",
  kind: "staleFeed",
  name: "EURUSD silent",
  enabled: true,
  platformIds: "all",
  symbolMask: "EURUSD",
  severity: "warning",
  cooldownSeconds: 0,
  staleSeconds: 3,
  createdAt: "2026-11-27T00:00:00.000Z",
  updatedAt: "2026-11-27T00:00:00.000Z",
} as const;

function setUp(rules: readonly object[] = []) {
  const clock = new ManualClock(FRIDAY_NOON);
  const published: { type: string }[] = [];
  /** The server's clock as its connector reports it; each read answers when the test says, in any order. */
  let serverNow = FRIDAY_NOON;
  const pending: { resolve: (v: { time: number; timeZoneOffsetMinutes: number }) => void; answer: number }[] = [];
  let answerAtOnce = true;
  const connector = {
    listSymbols: async () => [EURUSD],
    serverTime: () =>
      new Promise<{ time: number; timeZoneOffsetMinutes: number }>((resolve) => {
        const answer = serverNow + (clock.now() - FRIDAY_NOON);
        if (answerAtOnce) resolve({ time: answer, timeZoneOffsetMinutes: 0 });
        else pending.push({ resolve, answer });
      }),
    quotes: () => new QuoteBuffer({}),
  } as unknown as TradePlatformConnector;
  let connected: ((platform: { id: string }, connector: TradePlatformConnector) => void) | null = null;
  const monitor = new QuotesMonitor({
    platforms: {
      onConnected: (listener) => ((connected = listener as never), () => {}),
      state: () => ({ state: "connected" }) as never,
    },
    sources: { assigned: async () => [{ id: "p1", organizationId: "o1", name: "P1", type: "MT5" }], rules: async () => rules as never },
    bus: {
      publish: async (event: { type: string }) => {
        published.push(event);
      },
      subscribe: () => ({ close() {} }),
    } as unknown as EventBus,
    clock,
    log: { warn: () => {}, error: () => {} } as never,
    evaluateEveryMs: 1_000,
    refreshEveryMs: 5_000,
    serverTimeEveryMs: 10_000,
  });
  return {
    clock,
    monitor,
    connect: () => connected!({ id: "p1" }, connector),
    moveServerClockTo: (at: number) => (serverNow = at - (clock.now() - FRIDAY_NOON)),
    holdAnswers: () => (answerAtOnce = false),
    pending,
    published,
    session: () => monitor.rowsOf("o1").find((r) => r.symbol === "EURUSD")?.session,
  };
}

it("sees a server's clock moved to Saturday through its periodic re-read, told nothing", async () => {
  const s = setUp();
  await s.monitor.start();
  s.connect();
  await s.clock.advance(0);
  expect(s.session()).toBe("open");
  s.moveServerClockTo(SATURDAY_NOON);
  await s.clock.advance(5_000);
  expect(s.session()).toBe("open"); // not read yet: the re-read is every 10 s
  await s.clock.advance(6_000);
  expect(s.session()).toBe("closed");
  s.monitor.stop();
});

it("keeps the newest reading when an older read answers after it", async () => {
  const s = setUp();
  await s.monitor.start();
  s.connect();
  await s.clock.advance(0);
  expect(s.session()).toBe("open");
  s.holdAnswers();
  await s.clock.advance(10_000); // the periodic read starts (Friday) and waits
  expect(s.pending).toHaveLength(1);
  s.moveServerClockTo(SATURDAY_NOON);
  const direct = s.monitor.serverClockChanged("p1"); // the control route's read (Saturday)
  expect(s.pending).toHaveLength(2);
  s.pending[1]!.resolve({ time: s.pending[1]!.answer, timeZoneOffsetMinutes: 0 });
  await direct;
  expect(s.session()).toBe("closed");
  s.pending[0]!.resolve({ time: s.pending[0]!.answer, timeZoneOffsetMinutes: 0 });
  await s.clock.advance(0);
  expect(s.session()).toBe("closed");
  s.monitor.stop();
});

it("does not call a market stale while a moved clock is still being read (a loaded node answers late)", async () => {
  const s = setUp([EURUSD_SILENT]);
  await s.monitor.start();
  s.connect();
  await s.clock.advance(0);
  s.holdAnswers();
  s.moveServerClockTo(SATURDAY_NOON);
  const direct = s.monitor.serverClockChanged("p1");
  // Five seconds without a tick, past the rule's three, while the read of the moved clock waits.
  await s.clock.advance(5_000);
  expect(s.published.filter((e) => e.type === "quoteAlert")).toEqual([]);
  for (const p of s.pending) p.resolve({ time: p.answer, timeZoneOffsetMinutes: 0 });
  await direct;
  await s.clock.advance(2_000);
  expect(s.session()).toBe("closed");
  expect(s.published.filter((e) => e.type === "quoteAlert")).toEqual([]);
  s.monitor.stop();
});
