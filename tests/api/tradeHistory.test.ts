/**
 * The trade history store and the blotter's historical API, through the real app: simulated
 * platforms connected by the runtime, a backfill on connect, live trade events published on the
 * app's bus as the trade feed publishes them (events taken from the simulated platform's own
 * stream), and the API read with real tokens.
 */
// Databases: PGlite and PostgreSQL (the history store's SQL).
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type {
  BlotterDeal,
  BlotterDealPage,
  BlotterDealTotals,
  BlotterPositionPage,
  ExposureRates,
  TradeHistorySync,
} from "../../core/schemas/tradesBlotter.ts";
import { moneyFromDecimal, moneyToDecimal } from "../../core/trading/money.ts";
import { lotsToVolume, type Deal, type TradeEvent } from "../../core/trading/index.ts";
import type { TradePlatformConnector } from "../../server/connectors/connector.ts";
import { rowsOf } from "../../server/db/rows.ts";
import { tradeHistoryOf } from "../../server/modules/tradeHistory/plugin.ts";
import { positionColumns } from "../../server/modules/tradeHistory/rows.ts";
import { databaseNow, deletePositions, REMOVAL_PAGE, removePositionsNotListed, upsertPositions } from "../../server/modules/tradeHistory/repository/writes.ts";
import { describeDb } from "../helpers/db.ts";
import { createTestApp, type TestApp } from "../helpers/testApp.ts";
import { apiHeaders, newPerson, tokenFactory, type TokenFactory } from "../helpers/tokens.ts";
import { addMember, signUp } from "./support/fixtures.ts";

const DAY = 86_400_000;

describeDb("trade history store and blotter API", () => {
  let t: TestApp;
  let tokens: TokenFactory;
  const dealer = newPerson("Dealer A");
  const other = newPerson("Dealer B");
  const viewer = newPerson("Accounts viewer");
  let orgA: string;
  let orgB: string;
  let platformA: string;
  /** Org A's second platform, without the blotter app. */
  let unassigned: string;
  let platformB: string;
  let connectorA: TradePlatformConnector;

  const headers = async (person = dealer, org = orgA) => apiHeaders(await tokens.mint(person), org);
  const get = async (url: string, person = dealer, org = orgA) => t.app.inject({ url, headers: await headers(person, org) });
  const store = () => tradeHistoryOf(t.ctx)!;
  const range = () => `from=${new Date(Date.now() - 364 * DAY).toISOString()}&to=${new Date(Date.now() + DAY).toISOString()}`;

  async function createPlatform(org: string, person: typeof dealer, name: string, seed: number, blotter: boolean): Promise<string> {
    const res = await t.app.inject({
      method: "POST",
      url: "/api/tradePlatforms",
      headers: await headers(person, org),
      payload: { type: "MT5", name, timeZone: "Europe/Athens", connection: { kind: "simulated", accounts: 60, tradeRate: 0, seed } },
    });
    expect(res.statusCode, res.body).toBe(201);
    const id = res.json<{ id: string }>().id;
    if (blotter) {
      const assign = await t.app.inject({
        method: "POST",
        url: "/api/tradePlatforms/assign-application",
        headers: await headers(person, org),
        payload: { app: "tradesBlotter", platformIds: [id] },
      });
      expect(assign.statusCode, assign.body).toBe(200);
    }
    return id;
  }

  /** Waits (polling the API, with a deadline) until the platform's backfill has finished. */
  async function backfilled(platformId: string, person = dealer, org = orgA): Promise<TradeHistorySync> {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const res = await get(`/api/tradePlatforms/${platformId}/trade-history`, person, org);
      expect(res.statusCode, res.body).toBe(200);
      const sync = res.json<TradeHistorySync>();
      if (sync.status === "live" || sync.status === "failed") {
        await store().whenBackfilled(platformId);
        return sync;
      }
      if (Date.now() > deadline) throw new Error(`backfill of ${platformId} did not finish: ${JSON.stringify(sync)}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  async function allPages(query: string, limit = 50, person = dealer, org = orgA): Promise<BlotterDeal[]> {
    const items: BlotterDeal[] = [];
    let cursor: string | null = null;
    do {
      const res = await get(`/api/tradesBlotter/deals?${query}&limit=${limit}${cursor ? `&cursor=${cursor}` : ""}`, person, org);
      expect(res.statusCode, res.body).toBe(200);
      const page = res.json<BlotterDealPage>();
      items.push(...page.items);
      cursor = page.nextCursor;
    } while (cursor);
    return items;
  }

  /** Does something on the simulated platform and answers the trade events it produced, as the feed would receive them. */
  async function eventsOf(connector: TradePlatformConnector, action: () => Promise<unknown>, until: TradeEvent["type"]): Promise<TradeEvent[]> {
    const stream = connector.subscribe();
    await action();
    const events: TradeEvent[] = [];
    for await (const event of stream) {
      events.push(event);
      if (event.type === until) break;
    }
    stream.close();
    return events;
  }

  /** An account that may trade (enabled, not read-only). */
  async function tradingLogin(): Promise<string> {
    const accounts = (await connectorA.listAccounts({ limit: 1000 })).items;
    return accounts.find((a) => a.enabled && !a.readOnly && a.balance > 100_000)!.login;
  }

  async function publish(platformId: string, org: string, events: readonly TradeEvent[]): Promise<void> {
    await t.app.bus.publish(events.map((event) => ({ type: "trade" as const, organizationId: org, platformId, event })));
    await store().settled();
  }

  async function storedDeals(platformId: string): Promise<{ deal_id: string; n: number }[]> {
    const result = await t.ctx.database.db.execute(
      sql`select deal_id, count(*)::int as n from trade_deals where platform_id = ${platformId}::uuid group by deal_id`,
    );
    return rowsOf<{ deal_id: string; n: number }>(result);
  }

  beforeAll(async () => {
    t = await createTestApp();
    tokens = await tokenFactory(t.ctx);
    orgA = await signUp(t, tokens, dealer);
    orgB = await signUp(t, tokens, other);
    await addMember(t.ctx, orgA, viewer, { [`Module.users.${orgA}`]: "read", [`Module.tradePlatforms.${orgA}`]: "read" });
    platformA = await createPlatform(orgA, dealer, "Alpha", 11, true);
    unassigned = await createPlatform(orgA, dealer, "Unassigned", 12, false);
    platformB = await createPlatform(orgB, other, "Beta", 13, true);
    connectorA = await t.app.platforms.connectorFor(orgA, platformA);
  });

  afterAll(async () => {
    await t?.close();
  });

  describe("backfill on connect", () => {
    it("stores every account's deals within the window and the open positions, with progress done of total", async () => {
      const sync = await backfilled(platformA);
      const accounts = (await connectorA.listAccounts({ limit: 1000 })).items;
      expect(sync).toMatchObject({ status: "live", accountsDone: accounts.length, accountsTotal: accounts.length, lastError: null });
      const windowFrom = Date.parse(sync.windowFrom!);
      expect(Date.parse(sync.windowTo!) - windowFrom).toBe(30 * DAY);

      // What the platform has, over a much wider range: only the window's part is stored.
      const everything: Deal[] = [];
      for (const a of accounts) everything.push(...(await connectorA.dealHistory({ login: a.login, from: 0, to: Date.now() + DAY })));
      const inWindow = everything.filter((d) => d.time >= windowFrom);
      expect(everything.length).toBeGreaterThan(inWindow.length); // deposits older than 30 days exist
      expect(inWindow.length).toBeGreaterThan(0);
      const stored = await storedDeals(platformA);
      expect(stored.map((r) => r.deal_id).sort()).toEqual(inWindow.map((d) => d.id).sort());
      expect(sync.deals).toBe(inWindow.length);

      const open = await connectorA.openPositions();
      const res = await get(`/api/tradesBlotter/positions?platformIds=${platformA}&limit=1000`);
      expect(res.statusCode, res.body).toBe(200);
      const positions = res.json<BlotterPositionPage>();
      expect(positions.items.map((p) => p.positionId).sort()).toEqual(open.map((p) => p.id).sort());
      expect(positions.total).toBe(open.length);
    });

    it("a tradeGap backfills again from the last deal stored, writing no duplicates", async () => {
      await backfilled(platformA);
      const before = await storedDeals(platformA);
      await t.app.bus.publish({ type: "tradeGap", organizationId: orgA, platformId: platformA, resumedAt: Date.now() });
      await store().whenBackfilled(platformA);
      const sync = await backfilled(platformA);
      // Incremental: it starts a minute before the newest stored deal, not 30 days back.
      expect(Date.parse(sync.windowTo!) - Date.parse(sync.windowFrom!)).toBeLessThan(30 * DAY);
      const after = await storedDeals(platformA);
      expect(after.every((r) => r.n === 1)).toBe(true);
      expect(after.length).toBe(before.length);
    });
    it("removes the stored positions the platform no longer lists, a page of stored rows at a time, each exactly once", async () => {
      await backfilled(platformA);
      const open = (await connectorA.openPositions()).map((p) => p.id);
      const template = positionColumns((await connectorA.openPositions())[0]!);
      // More stored positions than several pages of the removal's scan, interleaved with the real ones by id.
      const stale = Array.from({ length: 2 * REMOVAL_PAGE + 345 }, (_, i) => `${String(i).padStart(5, "0")}-stale`);
      const platform = { id: platformA, organizationId: orgA };
      await upsertPositions(
        t.ctx.database.db,
        platform,
        stale.map((positionId) => ({ ...template, positionId })),
      );
      const readBefore = await databaseNow(t.ctx.database.db);
      const stillListed = stale.filter((_, i) => i % 3 === 0);
      try {
        await removePositionsNotListed(t.ctx.database.db, platformA, new Set([...open, ...stillListed]), readBefore);
        const stored = rowsOf<{ position_id: string }>(
          await t.ctx.database.db.execute(sql`select position_id from trade_positions where platform_id = ${platformA}::uuid`),
        ).map((r) => r.position_id);
        expect(stored.sort()).toEqual([...open, ...stillListed].sort());
      } finally {
        await deletePositions(t.ctx.database.db, platformA, stale);
      }
    });
  });

  describe("live events from the bus", () => {
    it("applies open, modify and close; the exit deal takes the position's stops; a replayed batch adds nothing", async () => {
      await backfilled(platformA);
      const login = await tradingLogin();
      const quote = (await connectorA.getQuotes(["BTCUSD"]))[0]!;
      let positionId = "";
      const opened = await eventsOf(
        connectorA,
        async () => {
          positionId = (
            await connectorA.placeOrder({
              requestId: crypto.randomUUID(),
              login,
              symbol: "BTCUSD",
              side: "buy",
              volume: lotsToVolume(0.02),
              comment: "live test",
            })
          ).positionId;
        },
        "dealAdded",
      );
      await publish(platformA, orgA, opened);
      const position = async () => {
        const res = await get(`/api/tradesBlotter/positions?platformIds=${platformA}&login=${login}&limit=1000`);
        return res.json<BlotterPositionPage>().items.find((p) => p.positionId === positionId);
      };
      expect(await position()).toMatchObject({ login, symbol: "BTCUSD", side: "buy", volume: "0.02", comment: "live test", sl: null });

      const sl = Number((quote.bid - 1000).toFixed(2));
      const tp = Number((quote.ask + 1000).toFixed(2));
      const modified = await eventsOf(connectorA, () => connectorA.modifyPosition({ requestId: crypto.randomUUID(), positionId, sl, tp }), "positionModified");
      await publish(platformA, orgA, modified);
      expect(await position()).toMatchObject({ sl, tp });

      const closed = await eventsOf(connectorA, () => connectorA.closePosition({ requestId: crypto.randomUUID(), positionId }), "dealAdded");
      await publish(platformA, orgA, closed);
      expect(await position()).toBeUndefined();

      const deals = (await allPages(`${range()}&platformIds=${platformA}&login=${login}`)).filter((d) => d.positionId === positionId);
      expect(deals.map((d) => d.entry).sort()).toEqual(["in", "out"]);
      const exit = deals.find((d) => d.entry === "out")!;
      expect(exit).toMatchObject({ side: "sell", volume: "0.02", sl, tp, platformName: "Alpha" });
      expect(exit.ticket).toBe(exit.dealId); // MT5: the deal number

      // The same events again (a redelivery), and the same deal twice in one batch: nothing new.
      const countBefore = (await storedDeals(platformA)).length;
      const dealEvent = closed.find((e) => e.type === "dealAdded")!;
      await publish(platformA, orgA, [...opened, ...modified, ...closed, dealEvent]);
      const rows = await storedDeals(platformA);
      expect(rows.length).toBe(countBefore);
      expect(rows.every((r) => r.n === 1)).toBe(true);
      expect(await position()).toBeUndefined();

      const res = await get(`/api/tradePlatforms/${platformA}/trade-history`);
      expect(res.json<TradeHistorySync>().lastSequence).toBe(Math.max(...closed.map((e) => e.sequence)));
    });
  });

  describe("the historical API", () => {
    it("filters by login prefix, group mask, symbol mask, side, volume and text", async () => {
      await backfilled(platformA);
      const all = await allPages(`${range()}&platformIds=${platformA}`, 1000);
      expect(all.length).toBeGreaterThan(5);
      const check = async (query: string, expected: (d: BlotterDeal) => boolean) => {
        const got = await allPages(`${range()}&platformIds=${platformA}&${query}`, 1000);
        expect(got.map((d) => d.key).sort(), query).toEqual(
          all
            .filter(expected)
            .map((d) => d.key)
            .sort(),
        );
      };
      const someLogin = all[0]!.login;
      await check(`login=${someLogin}`, (d) => d.login === someLogin);
      await check(`login=${someLogin.slice(0, 4)}*`, (d) => d.login.startsWith(someLogin.slice(0, 4)));
      // As the screen's login field sends it: several, exact or prefixes, separated by commas.
      const otherLogin = all.find((d) => d.login !== someLogin)!.login;
      await check(`login=${encodeURIComponent(`${someLogin}, ${otherLogin}`)}`, (d) => d.login === someLogin || d.login === otherLogin);
      await check(
        `login=${encodeURIComponent(`${someLogin},${otherLogin.slice(0, 3)}*`)}`,
        (d) => d.login === someLogin || d.login.startsWith(otherLogin.slice(0, 3)),
      );
      const group = all.find((d) => d.group !== "")!.group;
      expect(group).not.toBe("");
      await check(`groupMask=${encodeURIComponent(group.toUpperCase())}`, (d) => d.group === group);
      await check(`groupMask=${encodeURIComponent(`*,!${group}`)}`, (d) => d.group !== "" && d.group !== group);
      await check("symbolMask=EUR*", (d) => d.symbol?.startsWith("EUR") ?? false);
      await check("side=buy", (d) => d.side === "buy");
      expect(all.some((d) => d.action === "balance")).toBe(true);
      await check("side=balance", (d) => d.action === "balance");
      await check("volumeMin=0.05&volumeMax=0.3", (d) => Number(d.volume) >= 0.05 && Number(d.volume) <= 0.3);
      await check("text=deposit", (d) => d.comment.toLowerCase().includes("deposit"));
      // The newest first, by time.
      expect(all.map((d) => d.time)).toEqual([...all.map((d) => d.time)].sort().reverse());
      // Server time is the platform's clock (Europe/Athens is 2 or 3 hours ahead of UTC).
      const d0 = all[0]!;
      const shift = (Date.parse(d0.serverTime.replace(" ", "T") + "Z") - Date.parse(d0.time)) / 3_600_000;
      expect([2, 3]).toContain(shift);
    });

    it("keyset paging never repeats or skips a row while deals are being added", async () => {
      await backfilled(platformA);
      const query = `${range()}&platformIds=${platformA}`;
      const before = await allPages(query, 1000);
      const seen: BlotterDeal[] = [];
      let cursor: string | null = null;
      let added = 0;
      do {
        const res = await get(`/api/tradesBlotter/deals?${query}&limit=4${cursor ? `&cursor=${cursor}` : ""}`);
        const page = res.json<BlotterDealPage>();
        seen.push(...page.items);
        cursor = page.nextCursor;
        // Between pages, a new deal arrives (newer than every page read).
        const login = await tradingLogin();
        const events = await eventsOf(
          connectorA,
          () => connectorA.placeOrder({ requestId: crypto.randomUUID(), login, symbol: "BTCUSD", side: "sell", volume: lotsToVolume(0.01) }),
          "dealAdded",
        );
        await publish(platformA, orgA, events);
        added++;
      } while (cursor && added < 40);
      const keys = seen.map((d) => d.key);
      expect(new Set(keys).size).toBe(keys.length);
      expect(keys).toEqual(before.slice(0, keys.length).map((d) => d.key));
    });

    it("the first page counts; bad filters answer 400 with a readable message", async () => {
      const first = await get(`/api/tradesBlotter/deals?${range()}&limit=2`);
      const page = first.json<BlotterDealPage>();
      expect(page.total).toBe((await allPages(range(), 1000)).length);
      expect(page.totalCapped).toBe(false);
      const next = await get(`/api/tradesBlotter/deals?${range()}&limit=2&cursor=${page.nextCursor}`);
      expect(next.json<BlotterDealPage>().total).toBeNull();

      for (const [query, message] of [
        [`to=${new Date().toISOString()}`, "From"],
        [`from=2025-01-01T00:00:00Z&to=2024-01-01T00:00:00Z`, "From must be before to"],
        [`from=2023-01-01T00:00:00Z&to=2025-01-01T00:00:00Z`, "at most 366 days"],
        [`${range()}&limit=1001`, "Limit must be from 1 to 1000"],
        [`${range()}&side=long`, "Side must be buy, sell, balance or credit"],
        [`${range()}&volumeMin=abc`, "Minimum volume must be a volume"],
        [`${range()}&volumeMin=2&volumeMax=1`, "Minimum volume must not be greater"],
        [`${range()}&platformIds=nope`, "must be platform ids"],
        [`${range()}&login=${encodeURIComponent("a b")}`, "Login must be"],
        [`${range()}&cursor=garbage`, "cursor is not one this API gave"],
        [`${range()}&cursor=${Buffer.from('["x"]').toString("base64url")}`, "cursor is not one this API gave"],
      ] as const) {
        const res = await get(`/api/tradesBlotter/deals?${query}`);
        expect(res.statusCode, query).toBe(400);
        expect(res.json<{ message: string }>().message, query).toContain(message);
      }
      const positions = await get(`/api/tradesBlotter/positions?cursor=garbage`);
      expect(positions.statusCode).toBe(400);
    });

    it("totals cover every matching deal of the range, trading apart from deposits, withdrawals and credit", async () => {
      await backfilled(platformA);
      // One account's money movements, as the issue's login 10007: a 250,000 deposit, a 150,000
      // withdrawal, credit given and part taken back; then a trade.
      const login = await tradingLogin();
      for (const [type, amount] of [
        ["deposit", 25_000_000],
        ["withdrawal", 15_000_000],
        ["creditIn", 500_000],
        ["creditOut", 200_000],
      ] as const) {
        const events = await eventsOf(
          connectorA,
          () => connectorA.balanceOperation({ operationId: crypto.randomUUID(), login, type, amount, comment: `totals ${type}` }),
          "dealAdded",
        );
        await publish(platformA, orgA, events);
      }
      const traded = await eventsOf(
        connectorA,
        () => connectorA.placeOrder({ requestId: crypto.randomUUID(), login, symbol: "EURUSD", side: "buy", volume: lotsToVolume(0.1) }),
        "dealAdded",
      );
      await publish(platformA, orgA, traded);

      /** The totals expected from raw deals, summed here in integer minor units (not by the code under test). */
      const expectedOf = (deals: BlotterDeal[]): BlotterDealTotals => {
        const sum = (list: BlotterDeal[], f: (d: BlotterDeal) => string) => list.reduce((a, d) => a + moneyFromDecimal(f(d)), 0);
        const trades = deals.filter((d) => d.action === "buy" || d.action === "sell");
        const balance = deals.filter((d) => d.action === "balance");
        const volume = trades.reduce((a, d) => a + lotsToVolume(Number(d.volume)), 0);
        return {
          deals: trades.length,
          movements: deals.length - trades.length,
          volume: String(volume / 10_000),
          profit: moneyToDecimal(sum(trades, (d) => d.profit)),
          commission: moneyToDecimal(sum(trades, (d) => d.commission)),
          swap: moneyToDecimal(sum(trades, (d) => d.swap)),
          deposits: moneyToDecimal(
            sum(
              balance.filter((d) => moneyFromDecimal(d.profit) > 0),
              (d) => d.profit,
            ),
          ),
          withdrawals: moneyToDecimal(
            -sum(
              balance.filter((d) => moneyFromDecimal(d.profit) < 0),
              (d) => d.profit,
            ),
          ),
          credit: moneyToDecimal(
            sum(
              deals.filter((d) => d.action === "credit"),
              (d) => d.profit,
            ),
          ),
        };
      };
      const totalsOf = async (query: string) => {
        const res = await get(`/api/tradesBlotter/deals/totals?${query}`);
        expect(res.statusCode, res.body).toBe(200);
        return res.json<BlotterDealTotals>();
      };

      const mine = await allPages(`${range()}&login=${login}`, 1000);
      const expected = expectedOf(mine);
      expect(expected).toMatchObject({ deposits: expect.not.stringMatching(/^0\.00$/), withdrawals: expect.not.stringMatching(/^0\.00$/) });
      const got = await totalsOf(`${range()}&login=${login}`);
      expect(got).toEqual(expected);
      // The deposit and withdrawal are in neither the profit nor the deal count.
      expect(moneyFromDecimal(got.deposits)).toBeGreaterThanOrEqual(25_000_000);
      expect(moneyFromDecimal(got.withdrawals)).toBeGreaterThanOrEqual(15_000_000);

      // The whole range, more rows than one page: the totals are all the rows', not the page's.
      const all = await allPages(range(), 1000);
      const page = (await get(`/api/tradesBlotter/deals?${range()}&limit=5`)).json<BlotterDealPage>();
      expect(all.length).toBeGreaterThan(page.items.length);
      expect(await totalsOf(range())).toEqual(expectedOf(all));
      // The same filters as the pages.
      const eur = await allPages(`${range()}&symbolMask=EUR*&side=buy`, 1000);
      expect(await totalsOf(`${range()}&symbolMask=EUR*&side=buy`)).toEqual(expectedOf(eur));
      // Another organization's deals never count.
      const res = await get(`/api/tradesBlotter/deals/totals?${range()}&platformIds=${platformB}`);
      expect(res.statusCode).toBe(200);
      expect(res.json<BlotterDealTotals>()).toMatchObject({ deals: 0, movements: 0, profit: "0.00" });
      const bad = await get(`/api/tradesBlotter/deals/totals?from=2025-01-01T00:00:00Z&to=2024-01-01T00:00:00Z`);
      expect(bad.statusCode).toBe(400);
      expect(bad.json<{ message: string }>().message).toContain("From must be before to");
    });

    it("exposure rates convert each symbol's quote currency to the organization's with the platform's own quotes", async () => {
      const midOf = async (symbol: string) => {
        const [q] = await connectorA.getQuotes([symbol]);
        return (q!.bid + q!.ask) / 2;
      };
      const ratesOf = async () => {
        const res = await get("/api/tradesBlotter/exposure-rates");
        expect(res.statusCode, res.body).toBe(200);
        return res.json<ExposureRates>();
      };
      const close = (got: number | null | undefined, expected: number) => expect(Math.abs(got! / expected - 1)).toBeLessThan(0.01);
      const rates = await ratesOf();
      expect(rates.currency).toBe("USD");
      // Only the blotter's platforms of this organization.
      expect(new Set(rates.symbols.map((s) => s.platformId))).toEqual(new Set([platformA]));
      const of = (r: ExposureRates, symbol: string) => r.symbols.find((s) => s.symbol === symbol)!;
      expect(of(rates, "USDJPY")).toMatchObject({ quoteCurrency: "JPY", contractSize: 100_000 });
      close(of(rates, "USDJPY").rate, 1 / (await midOf("USDJPY")));
      expect(of(rates, "EURUSD").rate).toBe(1);
      // The issue's short: USDJPY -9.69 lots at its price is about -969,000 USD, not "-141M".
      const notionalJpy = -9.69 * 100_000 * (await midOf("USDJPY"));
      close(notionalJpy * of(rates, "USDJPY").rate!, -969_000);

      // In another currency: EUR, through EURUSD for USD-quoted symbols.
      await t.ctx.database.db.execute(sql`update organizations set currency = 'EUR' where id = ${orgA}::uuid`);
      try {
        const eur = await ratesOf();
        expect(eur.currency).toBe("EUR");
        close(of(eur, "XAUUSD").rate, 1 / (await midOf("EURUSD")));
        expect(of(eur, "EURUSD").quoteCurrency).toBe("USD");
      } finally {
        await t.ctx.database.db.execute(sql`update organizations set currency = 'USD' where id = ${orgA}::uuid`);
      }
      const viewerRes = await get("/api/tradesBlotter/exposure-rates", viewer);
      expect(viewerRes.statusCode).toBe(403);
    });

    it("the CSV holds exactly the rows of the JSON pages, with a count header, streamed", async () => {
      const query = `${range()}&platformIds=${platformA}&symbolMask=EUR*`;
      const json = await allPages(query, 7);
      const res = await get(`/api/tradesBlotter/deals.csv?${query}`);
      expect(res.statusCode, res.body).toBe(200);
      expect(res.headers["content-type"]).toContain("text/csv");
      expect(res.headers["content-disposition"]).toMatch(/^attachment; filename="trades-\d{4}-\d{2}-\d{2}-\d{4}-\d{2}-\d{2}\.csv"$/);
      const lines = res.body.split("\r\n").filter(Boolean);
      // The member's zone first (UTC unless asked), then each server's clock with its offset; one time form for both CSVs.
      expect(lines[0]).toBe(
        "Time (UTC),Time (server),Platform,Login,Group,Deal,Position,Symbol,Side,Entry,Volume,Price,SL,TP,Profit,Commission,Swap,Reason,Comment",
      );
      const data = lines.slice(1).map((l) => l.split(","));
      expect(Number(res.headers["x-total-count"])).toBe(json.length);
      expect(data.length).toBe(json.length);
      expect(data.map((c) => [c[0], c[2], c[3], c[5], c[7], c[10], c[14]])).toEqual(
        json.map((d) => [d.time.slice(0, 19).replace("T", " "), d.platformName, d.login, d.ticket, d.symbol ?? "", d.volume, d.profit]),
      );
      const offsetOf = (d: BlotterDeal) => (Date.parse(`${d.serverTime.slice(0, 19).replace(" ", "T")}Z`) - Date.parse(d.time.slice(0, 19) + "Z")) / 60_000;
      const hhmm = (m: number) => `${m < 0 ? "-" : "+"}${String(Math.floor(Math.abs(m) / 60)).padStart(2, "0")}:${String(Math.abs(m) % 60).padStart(2, "0")}`;
      expect(data.map((c) => c[1])).toEqual(json.map((d) => `${d.serverTime.slice(0, 19).replace("T", " ")} ${hhmm(offsetOf(d))}`));
    });

    it("the CSV writes its first times in the member's zone, named in the header", async () => {
      const query = `${range()}&platformIds=${platformA}&symbolMask=EUR*`;
      const json = await allPages(query, 1000);
      const res = await get(`/api/tradesBlotter/deals.csv?${query}&timeZone=Europe/Athens`);
      expect(res.statusCode, res.body).toBe(200);
      const lines = res.body.split("\r\n").filter(Boolean);
      expect(lines[0]!.split(",")[0]).toBe("Time (Europe/Athens)");
      const athens = (iso: string) => new Date(iso).toLocaleString("sv-SE", { timeZone: "Europe/Athens", hour12: false });
      expect(lines.slice(1).map((l) => l.split(",")[0])).toEqual(json.map((d) => athens(d.time)));
      const bad = await get(`/api/tradesBlotter/deals.csv?${query}&timeZone=${encodeURIComponent("+02:00")}`);
      expect(bad.statusCode).toBe(400);
      expect(bad.json<{ message: string }>().message).toMatch(/^Time zone must be an IANA time zone name/);
    });
  });

  describe("access", () => {
    it("organization B never sees organization A's deals or positions, even naming A's platform", async () => {
      await backfilled(platformB, other, orgB);
      const a = await allPages(`${range()}&platformIds=${platformA}`, 1000);
      expect(a.length).toBeGreaterThan(0);
      const asB = await get(`/api/tradesBlotter/deals?${range()}&platformIds=${platformA}`, other, orgB);
      expect(asB.statusCode).toBe(200);
      expect(asB.json<BlotterDealPage>()).toEqual({ items: [], nextCursor: null, total: 0, totalCapped: false });
      const own = await allPages(range(), 1000, other, orgB);
      expect(own.length).toBeGreaterThan(0);
      expect(own.every((d) => d.platformId === platformB)).toBe(true);
      const positions = await get(`/api/tradesBlotter/positions?platformIds=${platformA}`, other, orgB);
      expect(positions.json<BlotterPositionPage>().items).toEqual([]);
      const csv = await get(`/api/tradesBlotter/deals.csv?${range()}&platformIds=${platformA}`, other, orgB);
      expect(csv.headers["x-total-count"]).toBe("0");
      expect(csv.body.split("\r\n").filter(Boolean)).toHaveLength(1);
      // B cannot read A's platform's sync state either.
      expect((await get(`/api/tradePlatforms/${platformA}/trade-history`, other, orgB)).statusCode).toBe(404);
    });

    it("a platform without the blotter app returns nothing, though its deals are stored", async () => {
      await backfilled(unassigned);
      expect((await storedDeals(unassigned)).length).toBeGreaterThan(0);
      const res = await get(`/api/tradesBlotter/deals?${range()}&platformIds=${unassigned}`);
      expect(res.json<BlotterDealPage>().items).toEqual([]);
      const all = await allPages(range(), 1000);
      expect(all.some((d) => d.platformId === unassigned)).toBe(false);
      const positions = await get(`/api/tradesBlotter/positions?platformIds=${unassigned}`);
      expect(positions.json<BlotterPositionPage>().items).toEqual([]);
    });

    it("a member without tradesBlotter read gets 403", async () => {
      for (const url of [`/api/tradesBlotter/deals?${range()}`, `/api/tradesBlotter/deals.csv?${range()}`, "/api/tradesBlotter/positions"]) {
        const res = await get(url, viewer, orgA);
        expect(res.statusCode, url).toBe(403);
      }
      // The platform page's progress needs only tradePlatforms read.
      expect((await get(`/api/tradePlatforms/${platformA}/trade-history`, viewer, orgA)).statusCode).toBe(200);
    });
  });

  describe("retention", () => {
    it("deletes deals older than the retention, in batches, and keeps the rest", async () => {
      await backfilled(platformA);
      const login = (await connectorA.listAccounts({ limit: 1 })).items[0]!.login;
      const old = (i: number): TradeEvent => ({
        type: "dealAdded",
        sequence: 1_000_000 + i,
        time: Date.now() - 120 * DAY,
        login,
        deal: {
          id: `old-${i}`,
          login,
          time: Date.now() - 120 * DAY - i,
          action: "balance",
          entry: null,
          positionId: null,
          symbol: null,
          volume: 0,
          price: 0,
          profit: 100,
          commission: 0,
          swap: 0,
          comment: "old",
          reason: "dealer",
          native: { platform: "MT5", deal: 9_000_000 + i, order: 0, position: null },
        },
      });
      await publish(
        platformA,
        orgA,
        Array.from({ length: 1200 }, (_, i) => old(i)),
      );
      const before = await storedDeals(platformA);
      expect(before.filter((r) => r.deal_id.startsWith("old-"))).toHaveLength(1200);
      const deleted = await store().applyRetention();
      expect(deleted).toBe(1200);
      const after = await storedDeals(platformA);
      expect(after.filter((r) => r.deal_id.startsWith("old-"))).toHaveLength(0);
      expect(after.length).toBe(before.length - 1200);
    });
  });
});
