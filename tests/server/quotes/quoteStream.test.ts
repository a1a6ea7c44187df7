/**
 * The connectors' live quotes (TradePlatformConnector.quotes, docs/quotes-monitor.md): every tick of
 * a simulated server of each flavour, conflated to the latest per symbol for a slower consumer,
 * per-symbol tick rates and faults (a stopped feed, a widened spread), the server's clock moved to
 * a weekend. The vendor connectors' quotes are vendorQuotes.test.ts.
 */
import { describe, expect, it } from "vitest";
import { priceDistancePoints, sessionState, TRADE_PLATFORM_TYPES, type Quote } from "../../../core/trading/index.ts";
import { ManualClock } from "../../../server/connectors/clock.ts";
import { QuoteBuffer } from "../../../server/connectors/quotes/quoteStream.ts";
import { createSimulatedConnector } from "../../../server/connectors/simulated/connector.ts";
import { SimulatedServer } from "../../../server/connectors/simulated/server.ts";

function setUp(platform: (typeof TRADE_PLATFORM_TYPES)[number]) {
  const clock = new ManualClock();
  const server = new SimulatedServer({ platform, clock, seed: 7, accounts: 5, tradeRate: 0, feedIntervalMs: 100 });
  const connector = createSimulatedConnector(server, { clock });
  return { clock, server, connector };
}

/** Reads what the stream holds now (one batch), without waiting for more. */
async function next(iterator: AsyncIterator<Quote[]>): Promise<Quote[]> {
  const result = await iterator.next();
  return result.done ? [] : result.value;
}

describe("live quotes from the simulated servers", () => {
  it.each(TRADE_PLATFORM_TYPES)("%s: every tick in order, each the same as the server's quote at that step", async (platform) => {
    const { clock, server, connector } = setUp(platform);
    await connector.connect();
    server.start();
    const stream = connector.quotes({ symbols: ["EURUSD"] });
    const iterator = stream[Symbol.asyncIterator]();
    const seen: Quote[] = [];
    const expected: Quote[] = [];
    const stop = server.engine.ctx.feed.listen((ticks) => expected.push(...ticks.filter((t) => t.symbol === "EURUSD")));
    await clock.advance(1_000);
    while (seen.length < expected.length) seen.push(...(await next(iterator)));
    stop();
    expect(expected).toHaveLength(10);
    // The same prices, normalized: the codec's round trip keeps them, and times come back in UTC.
    expect(seen.map((q) => [q.symbol, q.bid, q.ask])).toEqual(expected.map((q) => [q.symbol, q.bid, q.ask]));
    expect(seen.every((q) => q.ask > q.bid)).toBe(true);
    stream.close();
    await connector.disconnect();
    server.stop();
  });

  it("conflates to the latest per symbol for a consumer that asked for it (or fell behind)", () => {
    const latest = new QuoteBuffer({ delivery: "latest" });
    const every = new QuoteBuffer({ maxQueued: 2 });
    const q = (symbol: string, bid: number): Quote => ({ symbol, bid, ask: bid + 1, time: bid });
    for (const buffer of [latest, every]) buffer.push([q("A", 1), q("B", 2), q("A", 3), q("A", 4), q("B", 5)]);
    const read = (buffer: QuoteBuffer) => (buffer as unknown as { take(): Quote[] }).take();
    expect(read(latest).map((x) => [x.symbol, x.bid])).toEqual([
      ["A", 4],
      ["B", 5],
    ]);
    expect(latest.conflated).toBe(3);
    // Two queued as they came, then the newest of each symbol since.
    expect(read(every).map((x) => [x.symbol, x.bid])).toEqual([
      ["A", 1],
      ["B", 2],
      ["A", 4],
      ["B", 5],
    ]);
    expect(every.conflated).toBe(1);
  });

  it("keeps a symbol's own tick rate, stops its feed, widens its spread, and resumes", async () => {
    const { clock, server, connector } = setUp("MT5");
    await connector.connect();
    server.start();
    const feed = server.engine.ctx.feed;
    const counts = new Map<string, number>();
    const spreads: number[] = [];
    feed.listen((ticks) => {
      for (const t of ticks) {
        counts.set(t.symbol, (counts.get(t.symbol) ?? 0) + 1);
        if (t.symbol === "GBPUSD") spreads.push(priceDistancePoints(t.ask, t.bid, 5));
      }
    });
    feed.control("USDJPY", { ticksPerSecond: 25 });
    feed.control("EURUSD", { stopped: true });
    const typical = server.engine.symbols().find((s) => s.name === "GBPUSD")!.spread;
    feed.control("GBPUSD", { spreadFactor: 10 });
    await clock.advance(2_000);
    expect(counts.get("USDJPY")).toBe(50);
    expect(counts.get("EURUSD")).toBeUndefined();
    expect(Math.min(...spreads)).toBeGreaterThanOrEqual(Math.round(typical * 10 * 0.8));
    feed.control("EURUSD", { stopped: false });
    await clock.advance(1_000);
    expect(counts.get("EURUSD")).toBe(10);
    await connector.disconnect();
    server.stop();
  });

  it("spreads the ticks of symbols with a rate of their own over the feed's interval, and keeps the others at one a step", async () => {
    const clock = new ManualClock();
    const server = new SimulatedServer({ platform: "MT5", clock, seed: 7, accounts: 5, tradeRate: 0, feedIntervalMs: 500 });
    server.start();
    const feed = server.engine.ctx.feed;
    const names = server.engine.symbols().map((s) => s.name);
    const [plain, ...rated] = names;
    for (const name of rated) feed.control(name, { ticksPerSecond: 5 });
    const batches: { at: number; symbols: string[] }[] = [];
    feed.listen((ticks) => batches.push({ at: clock.now(), symbols: ticks.map((t) => t.symbol) }));
    const start = clock.now();
    await clock.advance(2_000);
    const all = batches.flatMap((b) => b.symbols);
    // Each rated symbol keeps its rate; the plain one ticks once per 500 ms step, at the step.
    for (const name of rated) expect(all.filter((s) => s === name)).toHaveLength(10);
    expect(batches.filter((b) => b.symbols.includes(plain!)).map((b) => b.at - start)).toEqual([500, 1000, 1500, 2000]);
    // Not every symbol at one instant: the rated ticks come in many batches, none with most of them.
    const ratedTicks = all.length - 4;
    expect(batches.length).toBeGreaterThanOrEqual(10);
    expect(Math.max(...batches.map((b) => b.symbols.filter((s) => s !== plain).length))).toBeLessThan(ratedTicks / 4);
    server.stop();
  });

  it("shows closed markets on the weekend of the server's clock: no forex ticks, crypto still trades", async () => {
    const { clock, server, connector } = setUp("MT5");
    await connector.connect();
    server.start();
    const saturday = Date.UTC(2024, 0, 13, 12, 0, 0);
    server.setServerClock(saturday);
    const symbols = new Map(server.engine.symbols().map((s) => [s.name, s]));
    const ticked = new Set<string>();
    server.engine.ctx.feed.listen((ticks) => ticks.forEach((t) => ticked.add(t.symbol)));
    await clock.advance(1_000);
    const serverTime = await connector.serverTime();
    const local = serverTime.time + serverTime.timeZoneOffsetMinutes * 60_000;
    expect(Math.abs(serverTime.time - saturday - 1_000)).toBeLessThan(1_000);
    expect(sessionState(symbols.get("EURUSD")!.sessions, local)).toBe("closed");
    expect(sessionState(symbols.get("EURUSD")!.sessions, local, [new Date(local).toISOString().slice(0, 10)])).toBe("holiday");
    expect(ticked.has("EURUSD")).toBe(false);
    expect(ticked.has("BTCUSD")).toBe(true);
    server.setServerClock(null);
    await connector.disconnect();
    server.stop();
  });

  it("ends the stream when the connector is disconnected on purpose", async () => {
    const { server, connector } = setUp("MT4");
    await connector.connect();
    const stream = connector.quotes();
    const done = (async () => {
      for await (const _ of stream) void _;
      return "ended";
    })();
    await connector.disconnect();
    await expect(done).resolves.toBe("ended");
    server.stop();
  });
});
