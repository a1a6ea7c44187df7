/**
 * POST /api/tradePlatforms/{id}/simulator/trades: a simulated account's trader opens a market
 * position as from a client terminal (the copier's demo and browser test). It reaches the platform
 * as the trader's own trade (the account's positions say so), the server's refusals come in its
 * words (422), bad input is a readable 400, and another organization's platform is 404.
 * POST …/simulator/orders: the same trader places a pending order some points from the market.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import type { Position } from "../../core/trading/index.ts";
import { describeDb } from "../helpers/db.ts";
import { createTestApp, type TestApp } from "../helpers/testApp.ts";
import { apiHeaders, newPerson, tokenFactory, type TokenFactory } from "../helpers/tokens.ts";
import { signUp } from "./support/fixtures.ts";

describeDb("a simulated trader's trade, for demos", () => {
  let t: TestApp;
  let tokens: TokenFactory;
  const ada = newPerson("Ada Simulator");
  const eve = newPerson("Eve Elsewhere");
  let org: string;
  let eveOrg: string;
  let platformId: string;
  const headers = async (person = ada, organization = org) => apiHeaders(await tokens.mint(person), organization);
  const trade = async (body: unknown, person = ada, organization = org) =>
    t.app.inject({
      method: "POST",
      url: `/api/tradePlatforms/${platformId}/simulator/trades`,
      headers: await headers(person, organization),
      payload: body as object,
    });

  beforeAll(async () => {
    t = await createTestApp();
    tokens = await tokenFactory(t.ctx);
    org = await signUp(t, tokens, ada);
    eveOrg = await signUp(t, tokens, eve);
    const res = await t.app.inject({
      method: "POST",
      url: "/api/tradePlatforms",
      headers: await headers(),
      payload: { type: "MT5", name: "Demo", timeZone: "UTC", connection: { kind: "simulated", accounts: 5, tradeRate: 0 } },
    });
    expect(res.statusCode, res.body).toBe(201);
    platformId = res.json<{ id: string }>().id;
  });

  afterAll(async () => {
    await t?.close();
  });

  it("opens the position on the trader's account, once per call; refusals and bad input in words; other organizations get 404", async () => {
    const connector = await t.app.platforms.connectorFor(org, platformId);
    const login = (await connector.listAccounts({ limit: 10 })).items.find((a) => a.enabled && !a.readOnly)!.login;
    const opened = await trade({ login, symbol: "EURUSD", side: "sell", lots: 0.25 });
    expect(opened.statusCode, opened.body).toBe(200);
    const { positionId } = opened.json<{ positionId: string }>();
    const position = (await connector.openPositions(login)).find((p: Position) => p.id === positionId);
    expect(position).toMatchObject({ symbol: "EURUSD", side: "sell", volume: 2500 });

    for (const [body, message] of [
      [{ login, symbol: "EURUSD", side: "buy", lots: 0.001 }, "lots has at most 2 decimals"],
      [{ login, symbol: "EURUSD", side: "up", lots: 1 }, 'side must be "buy" or "sell"'],
      [{ login: "99999999", symbol: "EURUSD", side: "buy", lots: 1 }, "The simulated server has no account 99999999"],
      [{ login, symbol: "NOPE", side: "buy", lots: 1 }, "The simulated server has no symbol NOPE"],
    ] as const) {
      const res = await trade(body);
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json<{ message: string }>().message.toLowerCase()).toContain(message.toLowerCase());
    }
    // The server's own refusal, in its words: its clock moved to a Saturday, the market is closed.
    const clock = (body: object) =>
      headers().then((h) => t.app.inject({ method: "POST", url: `/api/tradePlatforms/${platformId}/simulator/quotes`, headers: h, payload: body }));
    expect((await clock({ serverClock: "2026-11-28T12:00:00Z" })).statusCode).toBe(200);
    const closed = await trade({ login, symbol: "EURUSD", side: "buy", lots: 1 });
    expect(closed.statusCode, closed.body).toBe(422);
    expect(closed.json<{ message: string }>().message).toBe("The market for EURUSD is closed now.");
    await clock({ restore: true });
    expect((await trade({ login, symbol: "EURUSD", side: "buy", lots: 1 }, eve, eveOrg)).statusCode).toBe(404);
    expect((await connector.openPositions(login)).filter((p: Position) => p.id === positionId)).toHaveLength(1);
  });

  it("places a trader's pending order the given points from the market, on its side of it; a level inside the stops level is the server's refusal", async () => {
    const connector = await t.app.platforms.connectorFor(org, platformId);
    const login = (await connector.listAccounts({ limit: 10 })).items.find((a) => a.enabled && !a.readOnly)!.login;
    const order = async (body: unknown, person = ada, organization = org) =>
      t.app.inject({
        method: "POST",
        url: `/api/tradePlatforms/${platformId}/simulator/orders`,
        headers: await headers(person, organization),
        payload: body as object,
      });
    const symbol = (await connector.listSymbols()).find((s) => s.name === "EURUSD")!;
    const point = 10 ** -symbol.digits;
    for (const [type, side] of [
      ["buyStop", 1],
      ["sellStop", -1],
      ["buyLimit", -1],
      ["sellLimit", 1],
    ] as const) {
      const [quote] = await connector.getQuotes(["EURUSD"]);
      const placed = await order({ login, symbol: "EURUSD", type, lots: 0.1, points: symbol.stopsLevel + 500 });
      expect(placed.statusCode, placed.body).toBe(200);
      const { orderId, price } = placed.json<{ orderId: string; price: number }>();
      const market = type.startsWith("buy") ? quote!.ask : quote!.bid;
      // The level is on the order's side of the market, about 500 points plus the stops level away (the market moved a little since).
      expect(Math.sign(price - market)).toBe(side);
      expect(Math.abs(Math.abs(price - market) / point - (symbol.stopsLevel + 500))).toBeLessThan(100);
      expect((await connector.pendingOrders(login)).find((o) => o.id === orderId)).toMatchObject({ type, symbol: "EURUSD", volume: 1000 });
    }
    // At the market itself: inside the stops level (at least a point), refused in the server's words.
    const inside = await order({ login, symbol: "EURUSD", type: "buyStop", lots: 0.1, points: 0 });
    expect(inside.statusCode, inside.body).toBe(422);
    expect(inside.json<{ message: string }>().message).toMatch(/^Invalid price for a buy stop of EURUSD: .* by at least \d+ points\.$/);
    for (const [body, message] of [
      [{ login, symbol: "EURUSD", type: "buyNow", lots: 1, points: 10 }, "must be one of buy limit, sell limit, buy stop, sell stop"],
      [{ login, symbol: "EURUSD", type: "buyStop", lots: 1, points: 1.5 }, "points must be a whole number"],
      [{ login, symbol: "NOPE", type: "buyStop", lots: 1, points: 10 }, "The simulated server has no symbol NOPE"],
    ] as const) {
      const res = await order(body);
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json<{ message: string }>().message.toLowerCase()).toContain(message.toLowerCase());
    }
    expect((await order({ login, symbol: "EURUSD", type: "buyStop", lots: 1, points: 10 }, eve, eveOrg)).statusCode).toBe(404);
  });
});
