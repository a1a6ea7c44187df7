import crypto from "node:crypto";
import { afterAll, beforeAll, expect, it } from "vitest";
import { describeDb } from "../helpers/db.ts";
import { createTestApp, type TestApp } from "../helpers/testApp.ts";
import { apiHeaders, newPerson, tokenFactory, type TokenFactory } from "../helpers/tokens.ts";
import { addTradePlatform, rowCounts, signUp } from "./support/fixtures.ts";
import { keyOf, operationsOf, type Operation } from "./support/routes.ts";
import { auditEvents, tradePlatforms } from "../../server/db/schema.ts";

/**
 * Input PostgreSQL cannot store, JSON meant to poison prototypes, or a request of the wrong shape:
 * a readable 400 (or 404 for a path naming nothing), never a 500, nothing written. The last three
 * tests walk every operation the real app registers, so a route added later is covered too.
 */
describeDb("bad input on every route", () => {
  /** Taken as each route is registered. */
  const operations: Operation[] = [];
  let t: TestApp;
  let tokens: TokenFactory;
  const ada = newPerson("Ada");
  let org: string;
  let headers: Record<string, string>;
  beforeAll(async () => {
    t = await createTestApp({}, { onRoute: (route) => void operations.push(...operationsOf(route)) });
    tokens = await tokenFactory(t.ctx);
    org = await signUp(t, tokens, ada);
    headers = { ...apiHeaders(await tokens.mint(ada), org), "content-type": "application/json" };
    platformId = (await addTradePlatform(t.ctx, org, "Ada's MT5")).id;
  });
  let platformId: string;
  afterAll(() => t?.close());

  const expect400 = (res: { statusCode: number; json(): { message: string } }, message: RegExp) => {
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toMatch(message);
  };

  it("refuses a NUL character in a body (platform name, preference value and key) and writes nothing", async () => {
    const platform = { type: "MT5", name: "x\u0000y", timeZone: "UTC", connection: { kind: "simulated", accounts: 5, tradeRate: 0 } };
    expect400(await t.app.inject({ method: "POST", url: "/api/tradePlatforms", headers, payload: JSON.stringify(platform) }), /NUL character/);
    expect400(await t.app.inject({ method: "PUT", url: "/api/preferences/x", headers, payload: JSON.stringify({ value: "a\u0000b" }) }), /NUL character/);
    expect400(await t.app.inject({ method: "PUT", url: "/api/preferences/x", headers, payload: '{"value":{"a\\u0000":1}}' }), /NUL character/);
    expect(await t.ctx.database.db.select().from(tradePlatforms)).toHaveLength(1);
    expect(await t.ctx.database.db.select().from(auditEvents)).toEqual([]);
  });

  it("refuses a NUL character in a query string", async () => {
    expect400(await t.app.inject({ url: "/api/accounts?name=a%00b", headers }), /NUL character/);
  });

  it("refuses a lone UTF-16 surrogate in a string or a key with a readable 400, and writes nothing", async () => {
    const before = (await t.app.inject({ url: "/api/organizations", headers })).json().length;
    for (const payload of ['{"name":"Broker \\ud800 Ltd"}', '{"name":"Broker \\udfff"}', '{"name":"x","\\udbff":1}', '{"name":"\\ude00\\ud83d"}']) {
      const res = await t.app.inject({ method: "POST", url: "/api/organizations", headers, payload });
      expect(res.statusCode, payload).toBe(400);
      expect(res.json().message).toBe("Text in the request contains a broken character (an unpaired UTF-16 surrogate, such as \\ud800).");
    }
    expect400(await t.app.inject({ method: "PUT", url: "/api/preferences/x", headers, payload: '{"value":["ok","\\ud800"]}' }), /unpaired UTF-16 surrogate/);
    expect((await t.app.inject({ url: "/api/organizations", headers })).json()).toHaveLength(before);
    expect(await t.ctx.database.db.select().from(auditEvents)).toEqual([]);
    // A well-formed pair is an ordinary character.
    const emoji = await t.app.inject({ method: "POST", url: "/api/organizations", headers, payload: '{"name":"Broker \\ud83d\\ude00 Ltd"}' });
    expect(emoji.statusCode).toBe(201);
    expect(emoji.json().name).toBe("Broker \u{1F600} Ltd");
  });

  it("refuses prototype poisoning and empty bodies", async () => {
    expect400(await t.app.inject({ method: "POST", url: "/api/organizations", headers, payload: '{"name":"x","__proto__":{"admin":true}}' }), /not valid JSON/);
    expect400(await t.app.inject({ method: "POST", url: "/api/organizations", headers, payload: "" }), /empty|JSON/);
  });

  /** Path parameters filled with values that look right (Ada's own ids), so only the part under test is wrong. */
  function urlOf(op: Operation, fill?: string): string {
    return op.url.replace(/:(\w+)/g, (_, name: string) => {
      if (fill !== undefined) return fill;
      const value = {
        id: platformId,
        platformId,
        login: "1001",
        positionId: "5001",
        key: "users.grid.columns",
        sub: ada.sub,
        clientId: `tbc_${"A".repeat(16)}`,
        linkId: "6f1c0a52-2f5e-4c41-9d1e-3b8f26a7c026",
        pluginId: "CPlugin.MT5Plugin.FlexibleLeverage",
      }[name];
      if (!value) throw new Error(`${keyOf(op)}: give this test a value for :${name}`);
      return value;
    });
  }

  /** A live stream would never end: an operation that starts one on bad input fails here, named, instead of timing the test out. */
  async function send(op: Operation, url: string, payload?: string) {
    const method = (op.method === "ALL" ? "GET" : op.method) as "GET";
    let timer: NodeJS.Timeout | undefined;
    const hung = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${keyOf(op)} ${url}: no answer within 5 s (a stream opened on bad input?)`)), 5_000);
    });
    try {
      return await Promise.race([
        t.app.inject({ method, url, headers: { ...headers, "idempotency-key": crypto.randomUUID() }, ...(payload === undefined ? {} : { payload }) }),
        hung,
      ]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** A message a person can read: no stack frame, no internal error name. */
  const expectReadable = (res: { json(): { message?: unknown } }, what: string) => {
    const message = res.json().message;
    expect.soft(typeof message === "string" && message.length > 0, `${what}: a message`).toBe(true);
    expect.soft(String(message), what).not.toMatch(/\bat \S+:\d+|Error:|TypeError|undefined/);
  };

  const withBody = () => operations.filter((op) => op.hasBody);

  it("finds every operation: bodies, query strings and path parameters of every module", () => {
    expect(withBody().length).toBeGreaterThanOrEqual(20);
    expect(operations.filter((op) => op.queryFields.length > 0).length).toBeGreaterThanOrEqual(8);
    expect(operations.filter((op) => op.url.includes(":")).length).toBeGreaterThanOrEqual(20);
  });

  it("refuses a body of the wrong shape on every operation that takes one, with a readable 400, writing nothing", async () => {
    const before = await rowCounts(t.ctx);
    for (const op of withBody()) {
      for (const payload of ["42", '"text"', "null", '{"\u0000":1}']) {
        const res = await send(op, urlOf(op), payload);
        const what = `${keyOf(op)} with ${payload}`;
        expect.soft(res.statusCode, what).toBe(400);
        expectReadable(res, what);
      }
    }
    expect(await rowCounts(t.ctx)).toEqual(before);
  });

  it("refuses a NUL character in any query string field with a readable 400, writing nothing", async () => {
    const before = await rowCounts(t.ctx);
    for (const op of operations.filter((o) => o.queryFields.length > 0)) {
      for (const field of op.queryFields) {
        const res = await send(op, `${urlOf(op)}?${field}=a%00b`, op.hasBody ? "{}" : undefined);
        const what = `${keyOf(op)} ?${field}=a%00b`;
        expect.soft(res.statusCode, what).toBe(400);
        if (op.method !== "HEAD") expectReadable(res, what);
      }
    }
    expect(await rowCounts(t.ctx)).toEqual(before);
  });

  it("says what a sort or its direction may be in words, on every operation that takes one (not 'dir must be asc or desc')", async () => {
    const sorted = operations.filter((o) => o.method === "GET" && (o.queryFields.includes("dir") || o.queryFields.includes("sort")));
    expect(sorted.length).toBeGreaterThanOrEqual(3);
    for (const op of sorted) {
      for (const field of op.queryFields.filter((f) => f === "dir" || f === "sort")) {
        const res = await send(op, `${urlOf(op)}?${field}=sideways`);
        const what = `${keyOf(op)} ?${field}=sideways`;
        expect.soft(res.statusCode, what).toBe(400);
        const message = String(res.json().message);
        // A sentence about the field in words, starting with a capital, naming what it may be.
        expect
          .soft(message, what)
          .toMatch(
            field === "dir" ? /^Sort direction must be asc \(ascending\) or desc \(descending\)$/ : /^Sort must (name a column|be asc \(oldest first\))/,
          );
        expect.soft(message, what).not.toMatch(/^(Dir|dir|sort)\b/);
      }
    }
  });

  it("answers path parameters that name nothing (a NUL, an over-long value) with 400 or 404, never a 500, writing nothing", async () => {
    const before = await rowCounts(t.ctx);
    for (const op of operations.filter((o) => o.url.includes(":"))) {
      for (const fill of ["a%00b", "x".repeat(300)]) {
        const res = await send(op, urlOf(op, fill), op.hasBody ? "{}" : undefined);
        const what = `${keyOf(op)} with :param=${fill.slice(0, 20)}`;
        expect.soft([400, 404], what).toContain(res.statusCode);
        if (op.method !== "HEAD") expectReadable(res, what);
      }
    }
    expect(await rowCounts(t.ctx)).toEqual(before);
  });
});
