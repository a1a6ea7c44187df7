/**
 * A dealer's changes to an open position through the API, against a simulated MT4 server (whose
 * partial close re-issues the rest under a new ticket): new stops, a partial close and a close,
 * each exactly once per Idempotency-Key — a retry, ten at once, a lost answer retried — with one
 * audit record (before and after); bad input answered 400 in words; the users module's write
 * permission; and another organization's reach.
 */
import { and, eq, like } from "drizzle-orm";
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import type { ClosePositionRequest, Position } from "../../core/trading/index.ts";
import { connectorErrors } from "../../server/connectors/errors.ts";
import { auditEvents, positionOperations } from "../../server/db/schema.ts";
import { accountsMirrorOf } from "../../server/modules/accounts/mirror/plugin.ts";
import { describeDb } from "../helpers/db.ts";
import { createTestApp, type TestApp } from "../helpers/testApp.ts";
import { apiHeaders, newPerson, tokenFactory, type Person, type TokenFactory } from "../helpers/tokens.ts";
import { addMember, signUp } from "./support/fixtures.ts";

describeDb("/api/accounts/…/positions/…/modify and close", () => {
  let t: TestApp;
  let tokens: TokenFactory;
  const dealer = newPerson("Position dealer");
  const viewer = newPerson("Position viewer");
  const outsider = newPerson("Other org dealer");
  let org: string;
  let otherOrg: string;
  let platformId: string;
  let logins: string[];

  beforeAll(async () => {
    t = await createTestApp();
    tokens = await tokenFactory(t.ctx);
    org = await signUp(t, tokens, dealer);
    otherOrg = await signUp(t, tokens, outsider);
    await addMember(t.ctx, org, viewer, { [`Module.users.${org}`]: "read" });
    const res = await t.app.inject({
      method: "POST",
      url: "/api/tradePlatforms",
      headers: apiHeaders(await tokens.mint(dealer), org),
      payload: { type: "MT4", name: "Sim MT4", timeZone: "Europe/Nicosia", connection: { kind: "simulated", accounts: 40, tradeRate: 0, seed: 8 } },
    });
    expect(res.statusCode, res.body).toBe(201);
    platformId = res.json().id;
    await accountsMirrorOf(t.ctx)!.whenSynced(platformId, 30_000);
    const all = (await (await connector()).listAccounts({ limit: 40 })).items;
    logins = all.filter((a) => a.enabled && !a.readOnly && a.balance > 2_000_000).map((a) => a.login);
  }, 120_000);
  afterAll(() => t?.close());

  const connector = () => t.app.platforms.connectorFor(org, platformId);
  let used = 0;
  const freshLogin = () => logins[used++]!;

  /** A BTCUSD position (crypto trades every day of the week) at a known price. */
  async function openPosition(login: string, side: "buy" | "sell" = "buy", lots = 0.1): Promise<Position> {
    t.app.platforms.simulatedServer(platformId)!.engine.setQuote("BTCUSD", 46_000, 46_020);
    const c = await connector();
    const result = await c.placeOrder({ requestId: crypto.randomUUID(), login, symbol: "BTCUSD", side, volume: Math.round(lots * 10_000) });
    return (await c.openPositions(login)).find((p) => p.id === result.positionId)!;
  }

  async function post(person: Person, organization: string, url: string, key: string | undefined, payload: unknown) {
    const res = await t.app.inject({
      method: "POST",
      url: `/api/accounts/${platformId}/${url}`,
      headers: { ...apiHeaders(await tokens.mint(person), organization), ...(key === undefined ? {} : { "idempotency-key": key }) },
      payload: payload as object,
    });
    return { status: res.statusCode, body: res.json(), replayed: res.headers["idempotent-replayed"] === "true" };
  }
  const modify = (login: string, id: string, key: string | undefined, body: unknown, person = dealer, organization = org) =>
    post(person, organization, `${login}/positions/${id}/modify`, key, body);
  const close = (login: string, id: string, key: string | undefined, body: unknown, person = dealer, organization = org) =>
    post(person, organization, `${login}/positions/${id}/close`, key, body);

  const audits = (login: string) =>
    t.ctx.database.db
      .select()
      .from(auditEvents)
      .where(and(like(auditEvents.action, "account.position.%"), eq(auditEvents.targetId, `${platformId}/${login}`)));
  const openOf = async (login: string) => (await connector()).openPositions(login);

  it("changes the stops once, audits before and after, and answers a retry with the first result", async () => {
    const login = freshLogin();
    const position = await openPosition(login);
    const key = crypto.randomUUID();
    const first = await modify(login, position.id, key, { sl: 44_000, tp: 48_500.5 });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.replayed).toBe(false);
    expect(first.body).toMatchObject({ kind: "modify", positionId: position.id, sl: 44_000, tp: 48_500.5, closedVolume: null });
    expect(first.body.position).toMatchObject({ id: position.id, sl: 44_000, tp: 48_500.5, volume: "0.1" });
    const onPlatform = (await openOf(login)).find((p) => p.id === position.id)!;
    expect([onPlatform.sl, onPlatform.tp]).toEqual([44_000, 48_500.5]);

    // Moved by someone else meanwhile: the retry still answers with the first result and changes nothing.
    await (await connector()).modifyPosition({ requestId: crypto.randomUUID(), positionId: position.id, sl: 43_000, tp: null });
    const again = await modify(login, position.id, key, { sl: 44_000, tp: 48_500.5 });
    expect(again.status).toBe(200);
    expect(again.replayed).toBe(true);
    expect(again.body).toEqual(first.body);
    expect((await openOf(login)).find((p) => p.id === position.id)).toMatchObject({ sl: 43_000, tp: null });

    const [audit, ...more] = await audits(login);
    expect(more).toHaveLength(0);
    expect(audit).toMatchObject({
      action: "account.position.modified",
      actorSub: dealer.sub,
      before: { positionId: position.id, symbol: "BTCUSD", side: "buy", volume: "0.1", sl: null, tp: null },
      after: { positionId: position.id, volume: "0.1", sl: 44_000, tp: 48_500.5, idempotencyKey: key },
    });

    // The same key for another request is refused; a refusal by the platform is the key's answer too.
    expect((await modify(login, position.id, key, { sl: 44_100, tp: null })).status).toBe(422);
    const wrongSide = crypto.randomUUID();
    const refused = await modify(login, position.id, wrongSide, { sl: 47_000, tp: null });
    expect(refused.status).toBe(422);
    expect(refused.body.message).toMatch(/stop/i);
    expect(await modify(login, position.id, wrongSide, { sl: 47_000, tp: null })).toMatchObject({ status: 422, body: { message: refused.body.message } });
    expect(await audits(login)).toHaveLength(1);
  });

  it("closes part of a position once when ten retries with one key arrive together, and the rest under MT4's new ticket", async () => {
    const login = freshLogin();
    const position = await openPosition(login, "sell", 0.3);
    const key = crypto.randomUUID();
    const answers = await Promise.all(Array.from({ length: 10 }, () => close(login, position.id, key, { volume: "0.1" })));
    for (const a of answers) expect(a.status, JSON.stringify(a.body)).toBe(200);
    expect(answers.filter((a) => !a.replayed)).toHaveLength(1);
    for (const a of answers) expect(a.body).toEqual(answers[0]!.body);
    const answer = answers[0]!.body;
    expect(answer).toMatchObject({ kind: "partialClose", positionId: position.id, closedVolume: "0.1" });
    expect(answer.position).toMatchObject({ volume: "0.2", side: "sell", symbol: "BTCUSD" });

    const open = (await openOf(login)).filter((p) => p.symbol === "BTCUSD");
    expect(open.map((p) => p.volume)).toEqual([2000]);
    expect(open[0]!.id).toBe(answer.position.id);
    const [audit, ...more] = await audits(login);
    expect(more).toHaveLength(0);
    expect(audit).toMatchObject({
      action: "account.position.partiallyClosed",
      before: { positionId: position.id, volume: "0.3" },
      after: { positionId: answer.position.id, volume: "0.2", closedVolume: "0.1", closePrice: answer.price },
    });

    // Then the rest, wholly.
    const all = await close(login, answer.position.id, crypto.randomUUID(), {});
    expect(all.status, JSON.stringify(all.body)).toBe(200);
    expect(all.body).toMatchObject({ kind: "close", closedVolume: "0.2", position: null });
    expect((await openOf(login)).filter((p) => p.symbol === "BTCUSD")).toHaveLength(0);
    expect((await audits(login)).map((a) => a.action).sort()).toEqual(["account.position.closed", "account.position.partiallyClosed"]);
  });

  it("after a lost answer, the retry with the same key sends the same request id and nothing is closed twice", async () => {
    const login = freshLogin();
    const position = await openPosition(login, "buy", 0.5);
    const runtime = t.app.platforms;
    const connectorFor = runtime.connectorFor.bind(runtime);
    const requestIds: string[] = [];
    let loseAnswer = true;
    const spy = vi.spyOn(runtime, "connectorFor").mockImplementation(async (organizationId, id) => {
      const real = await connectorFor(organizationId, id);
      return new Proxy(real, {
        get(target, prop) {
          if (prop === "closePosition")
            return async (request: ClosePositionRequest) => {
              requestIds.push(request.requestId);
              const result = await target.closePosition(request);
              if (loseAnswer) throw connectorErrors.timeout(10_000);
              return result;
            };
          const value = Reflect.get(target, prop, target);
          return typeof value === "function" ? value.bind(target) : value;
        },
      });
    });
    try {
      const key = crypto.randomUUID();
      const lost = await close(login, position.id, key, { volume: "0.2" });
      expect(lost.status).toBe(503);
      expect(lost.body.message).toMatch(/Retry with the same Idempotency-Key/);
      expect(await audits(login)).toHaveLength(0);
      loseAnswer = false;
      const retried = await close(login, position.id, key, { volume: "0.2" });
      expect(retried.status, JSON.stringify(retried.body)).toBe(200);
      expect(retried.body).toMatchObject({ kind: "partialClose", closedVolume: "0.2", position: { volume: "0.3" } });
      expect(requestIds).toHaveLength(2);
      expect(new Set(requestIds).size).toBe(1);
      expect((await openOf(login)).filter((p) => p.symbol === "BTCUSD").map((p) => p.volume)).toEqual([3000]);
      expect(await audits(login)).toHaveLength(1);
      const [row] = await t.ctx.database.db.select().from(positionOperations).where(eq(positionOperations.idempotencyKey, key));
      expect(row).toMatchObject({ id: requestIds[0], status: "done", kind: "partialClose" });
    } finally {
      spy.mockRestore();
    }
  });

  it("answers bad input with 400 in words, before anything is sent", async () => {
    const login = freshLogin();
    const position = await openPosition(login, "buy", 0.1);
    const key = () => crypto.randomUUID();
    const cases: [ReturnType<typeof close>, RegExp][] = [
      [close(login, position.id, key(), { volume: "0.1" }), /less than the position's 0\.1 lots; to close all of it, use Close/],
      [close(login, position.id, key(), { volume: "0.005" }), /Close at least 0\.01 lots \(the symbol's minimum\)/],
      [close(login, position.id, key(), { volume: "0.095" }), /Close a multiple of 0\.01 lots \(the symbol's volume step\)/],
      [close(login, position.id, key(), { volume: "lots" }), /The volume to close must be lots such as "0\.05"/],
      [close(login, position.id, key(), { volume: 0.05 }), /The volume to close must be lots written as text/],
      [close(login, position.id, key(), { volume: "0" }), /more than zero/],
      [modify(login, position.id, key(), { sl: "high", tp: null }), /Stop loss must be a price/],
      [modify(login, position.id, key(), { sl: -1, tp: null }), /Stop loss must be a price above zero/],
      [modify(login, position.id, key(), { sl: null }), /Take profit must be a price/],
      [modify(login, position.id, undefined, { sl: null, tp: null }), /Idempotency-Key/],
      [modify(login, "12 34", key(), { sl: null, tp: null }), /position id/],
    ];
    for (const [answer, message] of cases) {
      const { status, body } = await answer;
      expect(status, JSON.stringify(body)).toBe(400);
      expect(body.message).toMatch(message);
      expect(body.message).not.toMatch(/body\.|params\.|headers\./);
    }
    expect((await modify(login, "999999999", key(), { sl: null, tp: null })).status).toBe(404);
    expect((await openOf(login)).find((p) => p.id === position.id)).toMatchObject({ volume: 1000, sl: null, tp: null });
    expect(await audits(login)).toHaveLength(0);
  });

  it("needs the users module's write permission, and another organization never reaches the position", async () => {
    const login = freshLogin();
    const position = await openPosition(login, "buy", 0.2);
    const byViewer = await close(login, position.id, crypto.randomUUID(), {}, viewer);
    expect(byViewer.status).toBe(403);
    expect(byViewer.body.message).toMatch(/"write" permission on the "users" module/);
    expect((await modify(login, position.id, crypto.randomUUID(), { sl: 40_000, tp: null }, viewer)).status).toBe(403);
    for (const res of [
      await close(login, position.id, crypto.randomUUID(), {}, outsider, otherOrg),
      await modify(login, position.id, crypto.randomUUID(), { sl: 40_000, tp: null }, outsider, otherOrg),
    ])
      expect(res.status).toBe(404);
    expect((await openOf(login)).find((p) => p.id === position.id)).toMatchObject({ volume: 2000, sl: null });
    expect(await audits(login)).toHaveLength(0);
  });
});
