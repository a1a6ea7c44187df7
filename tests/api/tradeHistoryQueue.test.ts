/**
 * The trade history store's live writer when the database falls behind (decision 0061):
 * its queue is bounded (TRADE_HISTORY_MAX_QUEUED_EVENTS); past it the queued events are dropped and
 * their platforms read again, so once the database answers the store matches the platform. The
 * real app with a simulated platform whose trade feed publishes on the bus; the database is made
 * slow by holding every statement it is sent (`execute`, what the writer and the backfill use)
 * until the test lets them through, or only the one a backfill pass starts with.
 *
 * A blotter stream opened meanwhile gets its snapshot: it does not wait for the platform to be read
 * again (the dropped events were on the bus), and its open positions come from the platform until
 * the store has them again. When it waited, at a rate the writer could not hold (the passes followed
 * one another), a stream could get nothing for minutes (docs/benchmarks.md, 2026-11-23).
 */
// Databases: PGlite and PostgreSQL (the history store's queue and its sync rows).
import crypto from "node:crypto";
import { and, eq, inArray, sql } from "drizzle-orm";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { BlotterRow } from "../../core/schemas/blotterLive.ts";
import type { TradeHistorySync } from "../../core/schemas/tradesBlotter.ts";
import { lotsToVolume } from "../../core/trading/index.ts";
import { loadConfig } from "../../server/config.ts";
import type { AppContext } from "../../server/context.ts";
import { buildApp } from "../../server/http/app.ts";
import { rowsOf } from "../../server/db/rows.ts";
import { tradeDeals } from "../../server/db/schema.ts";
import { tradeHistoryOf } from "../../server/modules/tradeHistory/plugin.ts";
import { describeDb, openTestDatabase } from "../helpers/db.ts";
import { withExecuteHook } from "../helpers/executeHook.ts";
import { TEST_SECRETS_KEY } from "../helpers/testApp.ts";
import { apiHeaders, newPerson, tokenFactory } from "../helpers/tokens.ts";
import { signUp } from "./support/fixtures.ts";
import { sseReader } from "./support/sse.ts";

const BOUND = 20;
const DAY = 86_400_000;
/** The statement a backfill pass begins with once the platform was live: the last stored deal (syncState.ts, `lastDealTime`). */
const LAST_DEAL_TIME = /select \(extract\(epoch from max\(time\)\)/;

describeDb("trade history store: the live queue is bounded when the database falls behind", () => {
  let app: FastifyInstance;
  let ctx: AppContext;
  let drop: () => Promise<void>;
  /** While set, every statement sent with `execute` waits for it. */
  let held: Promise<void> | null = null;
  /** While set, a backfill pass's first statement waits for it (the pass takes as long as the test wants). */
  let passHeld: Promise<void> | null = null;
  /** While set, the next statement it matches fails (once). */
  let failNext: RegExp | null = null;
  let base: string;

  beforeAll(async () => {
    const database = await openTestDatabase();
    drop = () => database.drop();
    const slow = withExecuteHook(database.db, async (text) => {
      while (held) await held;
      if (passHeld && LAST_DEAL_TIME.test(text)) await passHeld;
      if (failNext?.test(text)) {
        failNext = null;
        throw new Error("the statement failed (test)");
      }
    });
    ctx = {
      config: loadConfig({
        NODE_ENV: "test",
        LOG_LEVEL: "silent",
        PUBLIC_URL: "http://localhost:3000",
        SECRETS_KEY: TEST_SECRETS_KEY,
        TRADE_HISTORY_MAX_QUEUED_EVENTS: String(BOUND),
      }),
      database: { ...database, db: slow },
    };
    app = await buildApp(ctx, { web: false, logger: false });
    base = await app.listen({ port: 0, host: "127.0.0.1" });
  });
  afterAll(async () => {
    await app?.close();
    await drop?.();
  });

  /** A dealer's organization with a simulated MT5 platform (no trades of its own), backfilled and live. */
  async function livePlatform(name: string) {
    const tokens = await tokenFactory(ctx);
    const dealer = newPerson(`${name} dealer`);
    const organizationId = await signUp({ app, ctx, close: async () => {} }, tokens, dealer);
    const headers = apiHeaders(await tokens.mint(dealer), organizationId);
    const created = await app.inject({
      method: "POST",
      url: "/api/tradePlatforms",
      headers,
      payload: { type: "MT5", name, timeZone: "Europe/Athens", connection: { kind: "simulated", accounts: 30, tradeRate: 0, seed: 21 } },
    });
    expect(created.statusCode, created.body).toBe(201);
    const platformId = created.json<{ id: string }>().id;
    const store = tradeHistoryOf(ctx)!;
    const deadline = Date.now() + 30_000;
    for (;;) {
      const res = await app.inject({ url: `/api/tradePlatforms/${platformId}/trade-history`, headers });
      if (res.json<TradeHistorySync>().status === "live") break;
      if (Date.now() > deadline) throw new Error(`no backfill: ${res.body}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    await store.whenBackfilled(platformId);
    const connector = await app.platforms.connectorFor(organizationId, platformId);
    const login = (await connector.listAccounts({ limit: 1000 })).items.find((a) => a.enabled && !a.readOnly && a.balance > 100_000)!.login;
    return { organizationId, headers, platformId, connector, login, store };
  }

  type Connector = Awaited<ReturnType<typeof livePlatform>>["connector"];

  async function assignBlotter(headers: Record<string, string>, platformId: string) {
    const assigned = await app.inject({
      method: "PUT",
      url: `/api/tradePlatforms/${platformId}/apps`,
      headers,
      payload: [{ app: "tradesBlotter", enabled: true }],
    });
    expect(assigned.statusCode, assigned.body).toBe(200);
  }

  /** The organization's deals as they reach the bus (`onTrade` also sees every trade event first). */
  function dealsOnBus(organizationId: string, onTrade: () => void = () => {}) {
    const ids: string[] = [];
    const subscription = app.bus.subscribe({ types: ["trade"], organizationId }, ({ event }) => {
      onTrade();
      if (event.event.type === "dealAdded") ids.push(event.event.deal.id);
    });
    return {
      ids,
      close: () => subscription.close(),
      async until(count: number) {
        const deadline = Date.now() + 15_000;
        while (ids.length < count && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      },
    };
  }

  /** Opens `count` 0.01-lot BTCUSD positions (buy, or alternating with `alternate`); answers their ids. */
  async function openPositions(connector: Connector, login: string, count: number, alternate = false): Promise<string[]> {
    const ids: string[] = [];
    for (let i = 0; i < count; i++) {
      const side = alternate && i % 2 ? "sell" : "buy";
      const placed = await connector.placeOrder({ requestId: crypto.randomUUID(), login, symbol: "BTCUSD", side, volume: lotsToVolume(0.01) });
      ids.push(placed.positionId);
    }
    return ids;
  }

  /** Holds every statement the writer and the backfill send (`execute`) until the returned function is called. */
  function holdDatabase(): () => void {
    let letThrough!: () => void;
    held = new Promise((resolve) => (letThrough = resolve));
    return () => {
      held = null;
      letThrough();
    };
  }

  /** A fresh blotter stream's first snapshot's rows (the stream is closed after). */
  async function firstSnapshot(headers: Record<string, string>, what: string): Promise<BlotterRow[]> {
    const res = await fetch(`${base}/api/tradesBlotter/stream`, { headers });
    expect(res.status).toBe(200);
    const sse = sseReader(res.body!);
    try {
      const snapshot = await sse.until(() => sse.events.find((e) => e.event === "snapshot"), what);
      return (snapshot.data as { rows: BlotterRow[] }).rows;
    } finally {
      await sse.cancel();
    }
  }

  /** The snapshot's open positions are the platform's, and it holds every deal named. */
  function expectSnapshot(rows: BlotterRow[], platformId: string, open: string[], dealIds: string[]) {
    expect(
      rows
        .filter((r) => r.kind === "position")
        .map((r) => r.key)
        .sort(),
    ).toEqual(open.map((id) => `p:${platformId}:${id}`).sort());
    const snapshotDeals = new Set(rows.filter((r) => r.kind === "deal").map((r) => r.key));
    expect(dealIds.filter((id) => !snapshotDeals.has(`d:${platformId}:${id}`))).toEqual([]);
  }

  async function storedPositionIds(platformId: string): Promise<string[]> {
    return rowsOf<{ position_id: string }>(
      await ctx.database.db.execute(sql`select position_id from trade_positions where platform_id = ${platformId}::uuid`),
    ).map((r) => r.position_id);
  }

  /** One login's deals as stored, and as the platform has them (sorted). */
  async function dealsOf(platformId: string, connector: Connector, login: string) {
    const stored = rowsOf<{ deal_id: string }>(
      await ctx.database.db.execute(sql`select deal_id from trade_deals where platform_id = ${platformId}::uuid and login = ${login}`),
    ).map((r) => r.deal_id);
    const platform = (await connector.dealHistory({ login, from: Date.now() - 30 * DAY, to: Date.now() + DAY })).map((d) => d.id);
    return { stored: stored.sort(), platform: platform.sort() };
  }

  it("keeps at most the bound queued, drops the rest, and reads the platform again: once the database answers, the store matches the platform", async () => {
    const { organizationId, platformId, connector, login, store } = await livePlatform("Queued");

    // What the writer holds, read as each trade event reaches the bus (the store's subscription comes first).
    let maxQueued = 0;
    const deals = dealsOnBus(organizationId, () => (maxQueued = Math.max(maxQueued, store.liveStats().queued)));
    const release = holdDatabase();
    try {
      // The database stops answering; a burst larger than the bound: 16 positions opened, 6 of them closed.
      const positions = await openPositions(connector, login, 16, true);
      for (const positionId of positions.slice(0, 6)) await connector.closePosition({ requestId: crypto.randomUUID(), positionId });
      await deals.until(22);
      expect(deals.ids.length).toBe(22);

      const stats = store.liveStats();
      expect(stats.bound).toBe(BOUND);
      expect(stats.overflows).toBeGreaterThan(0);
      expect(stats.dropped).toBeGreaterThan(0);
      expect(maxQueued).toBeLessThanOrEqual(BOUND);
      expect(stats.maxQueuedSeen).toBeLessThanOrEqual(BOUND);
    } finally {
      deals.close();
      release();
    }

    // The database answers again: what was queued is written, the platform is read again.
    await store.settled();
    await store.whenBackfilled(platformId);
    await store.settled();

    const open = (await connector.openPositions()).map((p) => p.id);
    expect((await storedPositionIds(platformId)).sort()).toEqual(open.sort());

    const { stored: storedDeals, platform: platformDeals } = await dealsOf(platformId, connector, login);
    expect(platformDeals.length).toBeGreaterThanOrEqual(22);
    expect(storedDeals).toEqual(platformDeals);
  });

  it("a blotter stream opened while the platform is read again gets its snapshot without waiting for that read: the deals from the bus, the open positions from the platform", async () => {
    const { organizationId, headers, platformId, connector, login, store } = await livePlatform("Behind");
    await assignBlotter(headers, platformId);
    const overflowsBefore = store.liveStats().overflows;
    const deals = dealsOnBus(organizationId);
    let letPassThrough!: () => void;
    passHeld = new Promise((resolve) => (letPassThrough = resolve));
    const release = holdDatabase();
    try {
      // The database stops answering; 16 positions opened: past the bound, so the writer drops what it holds.
      await openPositions(connector, login, 16, true);
      await deals.until(16);
      expect(deals.ids).toHaveLength(16);
      expect(store.liveStats().overflows).toBeGreaterThan(overflowsBefore);
    } finally {
      deals.close();
      release();
    }
    try {
      // The writer goes on; the pass that reads the platform again waits at its first statement.
      await store.settled();
      expect(store.positionsBehind(platformId)).toBe(true);

      const rows = await firstSnapshot(headers, "the snapshot while the platform is read again");
      const open = (await connector.openPositions()).map((p) => p.id);
      expect(open.length).toBeGreaterThanOrEqual(16);
      expectSnapshot(rows, platformId, open, deals.ids);
    } finally {
      passHeld = null;
      letPassThrough();
    }
    // Read again: the store has the positions, and its own are used again.
    await store.whenBackfilled(platformId);
    expect(store.positionsBehind(platformId)).toBe(false);
    expect((await storedPositionIds(platformId)).sort()).toEqual((await connector.openPositions()).map((p) => p.id).sort());
  });

  it("reads the platform again when a live batch fails, so the deals it held are stored all the same", async () => {
    const { organizationId, platformId, connector, login, store } = await livePlatform("Failing");
    const deals = dealsOnBus(organizationId);
    try {
      failNext = /^\s*insert into trade_deals/;
      await openPositions(connector, login, 3);
      await deals.until(3);
      expect(deals.ids.length).toBe(3);
      await store.settled();
      expect(failNext, "a live batch's deals statement failed").toBeNull();
    } finally {
      deals.close();
      failNext = null;
    }
    await store.whenBackfilled(platformId);
    const { stored: storedDeals, platform: platformDeals } = await dealsOf(platformId, connector, login);
    expect(platformDeals.length).toBeGreaterThanOrEqual(3);
    expect(storedDeals).toEqual(platformDeals);
  });

  it("sends a blotter stream its snapshot while the writer is held: what it has not written comes from its queue", async () => {
    const { organizationId, headers, platformId, connector, login, store } = await livePlatform("Held");
    await assignBlotter(headers, platformId);
    const overflowsBefore = store.liveStats().overflows;
    const deals = dealsOnBus(organizationId);
    const before = (await connector.openPositions()).map((p) => p.id);
    const release = holdDatabase();
    try {
      // The database stops answering the writer; 3 positions opened and one of the open ones closed: within the bound.
      const opened = await openPositions(connector, login, 3);
      await connector.closePosition({ requestId: crypto.randomUUID(), positionId: opened[0]! });
      await deals.until(4);
      expect(deals.ids).toHaveLength(4);
      expect(store.liveStats().overflows).toBe(overflowsBefore);
      expect(store.liveStats().queued + store.pendingEvents(platformId).length).toBeGreaterThan(0);

      const rows = await firstSnapshot(headers, "the snapshot while the writer is held");
      // Still held: nothing of the four deals is in the database.
      const stored = await ctx.database.db
        .select()
        .from(tradeDeals)
        .where(and(eq(tradeDeals.platformId, platformId), inArray(tradeDeals.dealId, deals.ids)));
      expect(stored).toHaveLength(0);
      const open = (await connector.openPositions()).map((p) => p.id);
      expect(open).toHaveLength(before.length + 2);
      expectSnapshot(rows, platformId, open, deals.ids);
    } finally {
      deals.close();
      release();
    }
  });
});
