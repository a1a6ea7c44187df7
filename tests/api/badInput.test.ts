import { afterAll, beforeAll, expect, it } from "vitest";
import { describeDb } from "../helpers/db.ts";
import { createTestApp, type TestApp } from "../helpers/testApp.ts";
import { apiHeaders, newPerson, tokenFactory, type TokenFactory } from "../helpers/tokens.ts";
import { signUp } from "./support/fixtures.ts";
import { auditEvents, tradePlatforms } from "../../server/db/schema.ts";

/** Input PostgreSQL cannot store, or JSON meant to poison prototypes: a readable 400, nothing written. */
describeDb("bad input on every route", () => {
  let t: TestApp;
  let tokens: TokenFactory;
  const ada = newPerson("Ada");
  let org: string;
  let headers: Record<string, string>;
  beforeAll(async () => {
    t = await createTestApp();
    tokens = await tokenFactory(t.ctx);
    org = await signUp(t, tokens, ada);
    headers = { ...apiHeaders(await tokens.mint(ada), org), "content-type": "application/json" };
  });
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
    expect(await t.ctx.database.db.select().from(tradePlatforms)).toEqual([]);
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
});
