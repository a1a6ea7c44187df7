/**
 * GET /api/tradePlatforms/{id}/config/symbolGroups (docs/server-configuration.md): the symbol
 * groups of a platform as the symbols' path tree, each with its version, checked against the
 * symbols read apart; a symbol moved by its path moves between groups; `tradePlatforms` read
 * needed, another organization's platform is 404.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { moduleClaimType } from "../../core/access.ts";
import { configVersion, type TradeSymbol } from "../../core/trading/index.ts";
import { describeDb } from "../helpers/db.ts";
import { createTestApp, type TestApp } from "../helpers/testApp.ts";
import { apiHeaders, newPerson, tokenFactory, type Person, type TokenFactory } from "../helpers/tokens.ts";
import { addMember, signUp } from "./support/fixtures.ts";

type Item<T> = { version: string; object: T };
type SymbolGroup = { path: string; parent: string | null; symbols: string[] };

describeDb("serverConfig: symbol groups", () => {
  let t: TestApp;
  let tokens: TokenFactory;
  const ada = newPerson("Ada Owner");
  const outsider = newPerson("Nico NoPlatforms");
  const eve = newPerson("Eve Elsewhere");
  let org: string;
  let eveOrg: string;
  let mt5: string;

  const call = async (method: "GET" | "POST", url: string, payload?: unknown, person: Person = ada, organization = org) =>
    t.app.inject({
      method,
      url,
      headers: apiHeaders(await tokens.mint(person), organization),
      ...(payload === undefined ? {} : { payload: payload as object }),
    });

  beforeAll(async () => {
    t = await createTestApp();
    tokens = await tokenFactory(t.ctx);
    org = await signUp(t, tokens, ada);
    eveOrg = await signUp(t, tokens, eve);
    await addMember(t.ctx, org, outsider, { [moduleClaimType("dealing", org)]: "write" });
    const res = await call("POST", "/api/tradePlatforms", {
      type: "MT5",
      name: "Sim MT5",
      timeZone: "UTC",
      connection: { kind: "simulated", accounts: 3, tradeRate: 0 },
    });
    expect(res.statusCode, res.body).toBe(201);
    mt5 = res.json<{ id: string }>().id;
  }, 60_000);
  afterAll(() => t?.close());

  const groups = async () => {
    const res = await call("GET", `/api/tradePlatforms/${mt5}/config/symbolGroups`);
    expect(res.statusCode, res.body).toBe(200);
    return res.json<{ platform: string; items: Item<SymbolGroup>[] }>();
  };
  const symbols = async () => (await call("GET", `/api/tradePlatforms/${mt5}/config/symbols`)).json<{ items: Item<TradeSymbol>[] }>().items;

  it("answers the symbols' path tree, each group with every symbol under it and its version", async () => {
    const all = (await symbols()).map((i) => i.object);
    const answer = await groups();
    expect(answer.platform).toBe("MT5");
    // Independent: a group per path prefix (the symbol's name at the end left out).
    const expected = new Map<string, Set<string>>();
    for (const s of all) {
      const parts = s.path.split("\\").slice(0, -1);
      for (let i = 1; i <= parts.length; i++) {
        const path = parts.slice(0, i).join("\\");
        expected.set(path, (expected.get(path) ?? new Set()).add(s.name));
      }
    }
    expect(answer.items.map((i) => i.object.path)).toEqual([...expected.keys()].sort());
    for (const { object, version } of answer.items) {
      expect(object.symbols).toEqual([...expected.get(object.path)!].sort());
      expect(version).toBe(configVersion(object));
    }
    expect(answer.items.find((i) => i.object.path === "Forex\\Majors")?.object.parent).toBe("Forex");
    expect(answer.items.find((i) => i.object.path === "Forex")?.object.parent).toBeNull();
  });

  it("a symbol moved by its path moves to its new group, whose version changes", async () => {
    const eurusd = (await symbols()).find((i) => i.object.name === "EURUSD")!;
    const before = await groups();
    const applied = await call("POST", `/api/tradePlatforms/${mt5}/config/apply`, {
      changes: [{ kind: "symbol", name: "EURUSD", expected: eurusd.version, patch: { path: "Forex\\Exotics\\EURUSD" } }],
    });
    expect(applied.json<{ results: { status: string }[] }>().results[0]?.status, applied.body).toBe("applied");
    const after = await groups();
    const group = (items: Item<SymbolGroup>[], path: string) => items.find((i) => i.object.path === path);
    expect(group(after.items, "Forex\\Exotics")?.object.symbols).toEqual(["EURUSD"]);
    expect(group(after.items, "Forex\\Majors")?.object.symbols).not.toContain("EURUSD");
    expect(group(after.items, "Forex\\Majors")?.version).not.toBe(group(before.items, "Forex\\Majors")?.version);
  });

  it("needs tradePlatforms read; another organization's platform is 404", async () => {
    expect((await call("GET", `/api/tradePlatforms/${mt5}/config/symbolGroups`, undefined, outsider)).statusCode).toBe(403);
    expect((await call("GET", `/api/tradePlatforms/${mt5}/config/symbolGroups`, undefined, eve, eveOrg)).statusCode).toBe(404);
  });
});
