/**
 * The copier's preview through the real app: a simulated MT5 source and a simulated Match-Trader
 * follower connected by the runtime; trades made on the source (an open with a stop loss, a
 * partial close, the close, a pending order placed and cancelled, a gold trade) and recorded in
 * the trade history store as the trade feed records them; then POST /api/tradesCopier/preview
 * with real tokens. The follower volumes are checked against a computation from the follower's
 * own symbol specs, written out here; skipped signals carry their reasons. Access: a member
 * without Module.tradesCopier read is refused, another organization's account is a 404, and a
 * link that names the source as its own follower is a 400.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import type { CopyLinkPreview, FollowerPreview } from "../../core/schemas/copierPreview.ts";
import type { TradeHistorySync } from "../../core/schemas/tradesBlotter.ts";
import type { TradeEvent, TradeSymbol } from "../../core/trading/index.ts";
import type { TradePlatformConnector } from "../../server/connectors/connector.ts";
import { tradeHistoryOf } from "../../server/modules/tradeHistory/plugin.ts";
import { describeDb } from "../helpers/db.ts";
import { createTestApp, type TestApp } from "../helpers/testApp.ts";
import { apiHeaders, newPerson, tokenFactory, type TokenFactory } from "../helpers/tokens.ts";
import { addMember, signUp } from "./support/fixtures.ts";

describeDb("the Trades Copier's preview on the source's recorded history", () => {
  let t: TestApp;
  let tokens: TokenFactory;
  const dealer = newPerson("Copier dealer");
  const blotterOnly = newPerson("Blotter-only member");
  const stranger = newPerson("Other org dealer");
  let org: string;
  let otherOrg: string;
  let sourcePlatform: string;
  let followerPlatform: string;
  let strangerPlatform: string;
  let source: TradePlatformConnector;
  let follower: TradePlatformConnector;
  let sourceLogin: string;
  let followerLogin: string;
  let strangerLogin: string;

  const store = () => tradeHistoryOf(t.ctx)!;

  async function post(payload: unknown, person = dealer, organization = org) {
    return t.app.inject({
      method: "POST",
      url: "/api/tradesCopier/preview",
      headers: apiHeaders(await tokens.mint(person), organization),
      payload: payload as object,
    });
  }

  async function simulated(person: typeof dealer, organization: string, type: "MT4" | "MT5" | "MatchTrader", name: string, seed: number): Promise<string> {
    const headers = apiHeaders(await tokens.mint(person), organization);
    const res = await t.app.inject({
      method: "POST",
      url: "/api/tradePlatforms",
      headers,
      payload: { type, name, timeZone: "UTC", connection: { kind: "simulated", accounts: 20, tradeRate: 0, seed } },
    });
    expect(res.statusCode, res.body).toBe(201);
    return res.json<{ id: string }>().id;
  }

  async function waitLive(platformId: string, person = dealer, organization = org): Promise<void> {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const res = await t.app.inject({ url: `/api/tradePlatforms/${platformId}/trade-history`, headers: apiHeaders(await tokens.mint(person), organization) });
      const sync = res.json<TradeHistorySync>();
      if (sync.status === "live" || sync.status === "failed") break;
      if (Date.now() > deadline) throw new Error("backfill did not finish");
      await new Promise((r) => setTimeout(r, 20));
    }
    await store().whenBackfilled(platformId);
  }

  async function tradingLogin(connector: TradePlatformConnector): Promise<string> {
    const accounts = (await connector.listAccounts({ limit: 100 })).items;
    return accounts.find((a) => a.enabled && !a.readOnly && a.balance > 1_000_000)!.login;
  }

  /** Does something on the source and records the events it produced in the store, as the trade feed would. */
  async function record(action: () => Promise<unknown>, until: TradeEvent["type"], on = source, platformId = sourcePlatform): Promise<TradeEvent[]> {
    const stream = on.subscribe();
    await action();
    const events: TradeEvent[] = [];
    for await (const event of stream) {
      events.push(event);
      if (event.type === until) break;
    }
    stream.close();
    await t.app.bus.publish(events.map((event) => ({ type: "trade" as const, organizationId: org, platformId, event })));
    await store().settled();
    return events;
  }

  beforeAll(async () => {
    t = await createTestApp();
    tokens = await tokenFactory(t.ctx);
    org = await signUp(t, tokens, dealer);
    otherOrg = await signUp(t, tokens, stranger);
    await addMember(t.ctx, org, blotterOnly, { [`Module.tradesBlotter.${org}`]: "read" });
    sourcePlatform = await simulated(dealer, org, "MT5", "Copier source", 31);
    followerPlatform = await simulated(dealer, org, "MatchTrader", "Copier follower", 32);
    strangerPlatform = await simulated(stranger, otherOrg, "MT5", "Someone else's", 33);
    source = await t.app.platforms.connectorFor(org, sourcePlatform);
    follower = await t.app.platforms.connectorFor(org, followerPlatform);
    await waitLive(sourcePlatform);
    sourceLogin = await tradingLogin(source);
    followerLogin = await tradingLogin(follower);
    strangerLogin = await tradingLogin(await t.app.platforms.connectorFor(otherOrg, strangerPlatform));
  });

  afterAll(async () => {
    await t?.close();
  });

  it("answers, per follower, the copies the link would have made with their volumes and the skipped signals with their reasons", async () => {
    const engine = t.app.platforms.simulatedServer(sourcePlatform)!.engine;
    engine.setQuote("EURUSD", 1.1, 1.10012);
    let positionId = "";
    await record(async () => {
      positionId = (await source.placeOrder({ requestId: crypto.randomUUID(), login: sourceLogin, symbol: "EURUSD", side: "buy", volume: 10_000, sl: 1.095 }))
        .positionId;
    }, "dealAdded");
    await record(() => source.closePosition({ requestId: crypto.randomUUID(), positionId, volume: 4000 }), "dealAdded");
    await record(() => source.closePosition({ requestId: crypto.randomUUID(), positionId }), "dealAdded");
    let orderId = "";
    await record(async () => {
      orderId = (
        await source.placePendingOrder({ requestId: crypto.randomUUID(), login: sourceLogin, symbol: "EURUSD", type: "buyLimit", volume: 3000, price: 1.09 })
      ).orderId;
    }, "orderPlaced");
    await record(() => source.cancelPendingOrder({ requestId: crypto.randomUUID(), orderId }), "orderCancelled");

    const followerAccount = { platformId: followerPlatform, login: followerLogin };
    const res = await post({
      name: "Preview",
      source: { platformId: sourcePlatform, login: sourceLogin },
      followers: [
        { account: followerAccount, volume: { mode: "multiplier", multiplier: 2 } },
        { account: { platformId: sourcePlatform, login: await otherLogin(source, sourceLogin) }, blockedSymbols: "EUR*" },
      ],
    });
    expect(res.statusCode, res.body).toBe(200);
    const preview = res.json<CopyLinkPreview>();
    expect(preview.sourceSignals).toBe(5);
    expect(preview.truncated).toBe(false);
    expect(Date.parse(preview.to) - Date.parse(preview.from)).toBe(7 * 86_400_000);

    // The follower's figures, worked out from its own symbol: 1.00 lot × 2, aligned by contract
    // size, rounded down to its step; then 0.40 of it closed, then the rest; the order's 0.30 × 2.
    const sourceSpec = (await source.listSymbols()).find((s) => s.name === "EURUSD")!;
    const spec = (await follower.listSymbols()).find((s) => s.name === "EURUSD")!;
    const lots = (volume: number, s: TradeSymbol) =>
      String((Math.floor((volume * sourceSpec.contractSize) / s.contractSize / s.volumeStep) * s.volumeStep) / 10_000);
    const opened = Math.floor((20_000 * sourceSpec.contractSize) / spec.contractSize / spec.volumeStep) * spec.volumeStep;
    const partial = Math.floor((opened * 0.4) / spec.volumeStep) * spec.volumeStep;
    const [first, second] = preview.followers as [FollowerPreview, FollowerPreview];
    expect(first.account).toEqual(followerAccount);
    expect(first.signals.map((s) => [s.source.action, s.outcome, s.follower?.action ?? null, s.follower?.volume ?? null])).toEqual([
      ["open", "copy", "open", String(opened / 10_000)],
      ["partialClose", "copy", "close", String(partial / 10_000)],
      ["close", "copy", "close", String((opened - partial) / 10_000)],
      ["orderPlaced", "copy", "placeOrder", lots(6000, spec)],
      ["orderCancelled", "copy", "cancelOrder", null],
    ]);
    expect(first.signals[0]).toMatchObject({
      source: { positionId, symbol: "EURUSD", side: "buy", volume: "1" },
      follower: { symbol: "EURUSD", side: "buy", sl: 1.095 },
    });
    expect(first.signals[3]!.follower).toMatchObject({ orderType: "buyLimit" });
    expect([first.copies, first.skipped]).toEqual([5, 0]);

    expect(second.signals.map((s) => [s.source.action, s.outcome, s.reason])).toEqual([
      ["open", "skip", "symbolBlocked"],
      ["partialClose", "skip", "notCopied"],
      ["close", "skip", "notCopied"],
      ["orderPlaced", "skip", "symbolBlocked"],
      ["orderCancelled", "skip", "notCopied"],
    ]);
    expect(second.signals[0]!.reasonText).toBe("The symbol is blocked");
    expect([second.copies, second.skipped]).toEqual([0, 5]);
  });

  it("follows an MT4 source's partial close, which re-issues the ticket, through to the close of the new ticket", async () => {
    const mt4Platform = await simulated(dealer, org, "MT4", "Copier MT4 source", 34);
    const mt4 = await t.app.platforms.connectorFor(org, mt4Platform);
    await waitLive(mt4Platform);
    const login = await tradingLogin(mt4);
    t.app.platforms.simulatedServer(mt4Platform)!.engine.setQuote("EURUSD", 1.1, 1.10012);
    let ticket = "";
    await record(
      async () => {
        ticket = (await mt4.placeOrder({ requestId: crypto.randomUUID(), login, symbol: "EURUSD", side: "sell", volume: 10_000 })).positionId;
      },
      "dealAdded",
      mt4,
      mt4Platform,
    );
    const partial = await record(
      () => mt4.closePosition({ requestId: crypto.randomUUID(), positionId: ticket, volume: 3000 }),
      "positionOpened",
      mt4,
      mt4Platform,
    );
    const reissued = partial.find((e) => e.type === "positionOpened");
    if (reissued?.type !== "positionOpened") throw new Error("MT4 re-issues the rest under a new ticket");
    expect(reissued.position.previousId).toBe(ticket);
    await record(() => mt4.closePosition({ requestId: crypto.randomUUID(), positionId: reissued.position.id }), "dealAdded", mt4, mt4Platform);

    const res = await post({
      name: "MT4 preview",
      source: { platformId: mt4Platform, login },
      followers: [{ account: { platformId: followerPlatform, login: followerLogin }, alignContractSize: false }],
    });
    expect(res.statusCode, res.body).toBe(200);
    const [only] = res.json<CopyLinkPreview>().followers as [FollowerPreview];
    expect(only.signals.map((s) => [s.source.action, s.source.positionId, s.follower?.action ?? null, s.follower?.volume ?? null])).toEqual([
      ["open", ticket, "open", "1"],
      ["partialClose", ticket, "close", "0.3"],
      ["close", ticket, "close", "0.7"],
    ]);
  });

  it("refuses a member without Module.tradesCopier read, another organization's accounts (404) and an invalid link (400)", async () => {
    const link = (followerRef: { platformId: string; login: string }) => ({
      name: "Preview",
      source: { platformId: sourcePlatform, login: sourceLogin },
      followers: [{ account: followerRef }],
    });
    expect((await post(link({ platformId: followerPlatform, login: followerLogin }), blotterOnly)).statusCode).toBe(403);

    const foreign = await post(link({ platformId: strangerPlatform, login: strangerLogin }));
    expect(foreign.statusCode, foreign.body).toBe(404);
    const foreignSource = await post({
      ...link({ platformId: followerPlatform, login: followerLogin }),
      source: { platformId: strangerPlatform, login: strangerLogin },
    });
    expect(foreignSource.statusCode, foreignSource.body).toBe(404);
    const unknownLogin = await post(link({ platformId: followerPlatform, login: "999999999" }));
    expect(unknownLogin.statusCode, unknownLogin.body).toBe(404);

    const self = await post(link({ platformId: sourcePlatform, login: sourceLogin }));
    expect(self.statusCode).toBe(400);
    expect(self.body).toMatch(/An account cannot follow itself/);
    const badVolume = await post({
      ...link({ platformId: followerPlatform, login: followerLogin }),
      followers: [{ account: { platformId: followerPlatform, login: followerLogin }, minLots: "0.5", maxLots: "0.1" }],
    });
    expect(badVolume.statusCode).toBe(400);
    expect(badVolume.body).toMatch(/The minimum volume cannot be above the maximum/);
  });
});

async function otherLogin(connector: TradePlatformConnector, not: string): Promise<string> {
  const accounts = (await connector.listAccounts({ limit: 100 })).items;
  return accounts.find((a) => a.login !== not && a.enabled)!.login;
}
