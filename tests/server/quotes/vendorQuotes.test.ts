/**
 * Live quotes from the three vendor connectors, each against its local protocol server and in its
 * vendor's way (docs/quotes-monitor.md): the MT4 gateway's pumped ticks, Match-Trader's gRPC
 * quotations stream, the MT5 Web API's `tick/last` polled. Ticks arrive with the server's prices;
 * a symbol whose feed stops gets no more (and resumes); a consumer that asked for the latest gets
 * one quote per symbol. Match-Trader's request carries the connection's quotes group (else the
 * first offer's), as the protocol server received it. The simulated clock is driven in the
 * background; the tests wait on the stream's own batches.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { Quote } from "../../../core/trading/index.ts";
import type { ManualClock } from "../../../server/connectors/clock.ts";
import type { TradePlatformConnector } from "../../../server/connectors/connector.ts";
import type { SimulatedServer } from "../../../server/connectors/simulated/server.ts";
import { matchTraderApiHarness } from "../connectors/matchTraderApiHarness.ts";
import { mt4GatewayHarness } from "../connectors/mt4GatewayHarness.ts";
import { mt5WebApiHarness } from "../connectors/mt5WebApiHarness.ts";

interface Setup {
  clock: ManualClock;
  simulated: SimulatedServer;
  connector: TradePlatformConnector;
  close(): Promise<void>;
}

const SERVER = { feedIntervalMs: 1_000, accounts: 5 };

const vendors: [string, () => Promise<Setup>][] = [
  [
    "MT4 gateway (pumped ticks)",
    async () => {
      const h = await mt4GatewayHarness(SERVER)();
      return { clock: h.clock, simulated: h.simulated, connector: h.connector, close: () => h.close() };
    },
  ],
  [
    "MT5 Web API (tick/last polled)",
    async () => {
      const h = await mt5WebApiHarness(SERVER)();
      return { clock: h.clock, simulated: h.simulated, connector: h.connector, close: () => h.close() };
    },
  ],
  [
    "Match-Trader (gRPC quotations)",
    async () => {
      const h = await matchTraderApiHarness(SERVER)();
      return { clock: h.clock, simulated: h.engine, connector: h.connector, close: () => h.close() };
    },
  ],
];

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** Moves the simulated clock 100 ms at a time, a breath of real time between, until stopped. */
function driveClock(clock: ManualClock): () => Promise<void> {
  let running = true;
  const loop = (async () => {
    while (running) {
      await clock.advance(100);
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
  })();
  return async () => {
    running = false;
    await loop;
  };
}

/** Reads batches until `done` holds for everything read so far. */
async function readUntil(iterator: AsyncIterator<Quote[]>, seen: Quote[], done: (seen: Quote[]) => boolean): Promise<void> {
  while (!done(seen)) {
    const next = await iterator.next();
    if (next.done) throw new Error("The quote stream ended");
    seen.push(...next.value);
  }
}

const key = (q: { symbol: string; bid: number; ask: number }) => `${q.symbol} ${q.bid} ${q.ask}`;
const timesOf = (seen: Quote[], symbol: string) => new Set(seen.filter((q) => q.symbol === symbol).map((q) => q.time));

describe.each(vendors)("live quotes: %s", (_name, setUp) => {
  async function started() {
    const s = await setUp();
    cleanups.push(() => s.close());
    await s.connector.connect();
    const made: string[] = [];
    const listenedAt = s.clock.now();
    const unlisten = s.simulated.engine.ctx.feed.listen((ticks) => made.push(...ticks.map(key)));
    const stop = driveClock(s.clock);
    cleanups.push(async () => {
      unlisten();
      await stop();
    });
    return { ...s, madeList: made, listenedAt };
  }

  it("hands on the server's ticks; a stopped symbol's feed stops and resumes", { timeout: 30_000 }, async () => {
    const s = await started();
    const stream = s.connector.quotes({ symbols: ["EURUSD", "GBPUSD"] });
    const iterator = stream[Symbol.asyncIterator]();
    const seen: Quote[] = [];
    await readUntil(iterator, seen, (x) => timesOf(x, "EURUSD").size >= 2 && timesOf(x, "GBPUSD").size >= 2);
    expect(new Set(seen.map((q) => q.symbol))).toEqual(new Set(["EURUSD", "GBPUSD"]));
    // Each is a tick the server made, with its prices (before them, MT5's first poll reads the quote then).
    const made = new Set(s.madeList);
    const ticked = seen.filter((q) => q.time > s.listenedAt);
    expect(ticked.length).toBeGreaterThanOrEqual(2);
    expect(ticked.every((q) => made.has(key(q)))).toBe(true);

    s.simulated.engine.ctx.feed.control("EURUSD", { stopped: true });
    const stoppedAt = s.clock.now();
    const after: Quote[] = [];
    await readUntil(iterator, after, (x) => x.some((q) => q.symbol === "GBPUSD" && q.time >= stoppedAt + 3_000));
    expect(after.filter((q) => q.symbol === "EURUSD" && q.time > stoppedAt)).toEqual([]);
    // At most the one on its way when it stopped: its last tick is not handed on again (MT5's polls keep reading it).
    expect(after.filter((q) => q.symbol === "EURUSD").length).toBeLessThanOrEqual(1);

    s.simulated.engine.ctx.feed.control("EURUSD", { stopped: false });
    const resumed: Quote[] = [];
    await readUntil(iterator, resumed, (x) => x.some((q) => q.symbol === "EURUSD" && q.time > stoppedAt + 3_000));
    stream.close();
  });

  it("conflates to the latest per symbol for a consumer that reads more slowly", { timeout: 30_000 }, async () => {
    const s = await started();
    const slow = s.connector.quotes({ symbols: ["EURUSD", "GBPUSD"], delivery: "latest" });
    const reader = s.connector.quotes({ symbols: ["GBPUSD"] });
    const readerIterator = reader[Symbol.asyncIterator]();
    const seen: Quote[] = [];
    // While the slow consumer reads nothing, the server ticks on for five steps.
    await readUntil(readerIterator, seen, (x) => timesOf(x, "GBPUSD").size >= 5);
    const [batch] = await (async () => {
      const next = await slow[Symbol.asyncIterator]().next();
      return [next.done ? [] : next.value];
    })();
    expect(batch.map((q) => q.symbol).sort()).toEqual(["EURUSD", "GBPUSD"]);
    expect(slow.conflated).toBeGreaterThanOrEqual(2);
    reader.close();
  });
});

describe("live quotes: Match-Trader's quotes group", () => {
  it("asks the server for the connection's quotes group, else the first offer's", { timeout: 30_000 }, async () => {
    const h = await matchTraderApiHarness(SERVER)();
    cleanups.push(() => h.close());
    const stop = driveClock(h.clock);
    cleanups.push(stop);
    const firstBatch = async (connector: TradePlatformConnector) => {
      await connector.connect();
      const stream = connector.quotes({ symbols: ["EURUSD"] });
      const next = await stream[Symbol.asyncIterator]().next();
      stream.close();
      return next.done ? [] : next.value;
    };
    expect(await firstBatch(h.connector)).not.toEqual([]);
    const offerGroup = h.protocolServer.quotationRequests.at(-1)?.group;
    const chosen = h.engine.engine.groups().find((g) => g.name !== offerGroup)?.name;
    expect(offerGroup && chosen).toBeTruthy();
    expect(await firstBatch(h.connectWith({ quotesGroup: chosen }))).not.toEqual([]);
    expect(h.protocolServer.quotationRequests.map((r) => [r.group, r.instruments])).toEqual([
      [offerGroup, ["EURUSD"]],
      [chosen, ["EURUSD"]],
    ]);
  });
});
