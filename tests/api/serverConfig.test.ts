/**
 * /api/tradePlatforms/{id}/config/… through the real app and simulated servers
 * (docs/server-configuration.md): groups, symbols and holidays read with versions; staged changes
 * applied one by one exactly as sent, read back through the connector and from the simulation,
 * audited with before/after; the platforms' rules answered per change in their words and bad
 * shapes as 400s; a change made meanwhile through the connector refused with both versions; the
 * history's revert; `Module.tradePlatforms` read/write; another organization's platform is 404.
 */
import { and, eq, like } from "drizzle-orm";
import { afterAll, beforeAll, expect, it } from "vitest";
import { moduleClaimType } from "../../core/access.ts";
import { configVersion, type Group, type Holiday, type TradeSymbol } from "../../core/trading/index.ts";
import { auditEvents } from "../../server/db/schema.ts";
import { describeDb } from "../helpers/db.ts";
import { createTestApp, type TestApp } from "../helpers/testApp.ts";
import { apiHeaders, newPerson, tokenFactory, type Person, type TokenFactory } from "../helpers/tokens.ts";
import { addMember, signUp } from "./support/fixtures.ts";

type Item<T> = { version: string; object: T };
type Result = {
  kind: string;
  name: string | null;
  status: "applied" | "invalid" | "changed" | "failed";
  message: string | null;
  version: string | null;
  object?: unknown;
  current?: unknown;
  currentVersion: string | null;
};
type Entry = { id: string; kind: string; name: string | null; before: Record<string, unknown>; after: Record<string, unknown>; revert: unknown };

describeDb("serverConfig: the server configuration editors' API", () => {
  let t: TestApp;
  let tokens: TokenFactory;
  const ada = newPerson("Ada Owner");
  const reader = newPerson("Rita Reader");
  const outsider = newPerson("Nico NoPlatforms");
  const eve = newPerson("Eve Elsewhere");
  let org: string;
  let eveOrg: string;
  let mt5: string;
  let matchTrader: string;

  const call = async (method: "GET" | "POST", url: string, payload?: unknown, person: Person = ada, organization = org) =>
    t.app.inject({
      method,
      url,
      headers: apiHeaders(await tokens.mint(person), organization),
      ...(payload === undefined ? {} : { payload: payload as object }),
    });
  const simulated = async (type: "MT5" | "MatchTrader", name: string) => {
    const res = await call("POST", "/api/tradePlatforms", { type, name, timeZone: "UTC", connection: { kind: "simulated", accounts: 3, tradeRate: 0 } });
    expect(res.statusCode, res.body).toBe(201);
    return res.json<{ id: string }>().id;
  };
  const groups = async (platform = mt5) => (await call("GET", `/api/tradePlatforms/${platform}/config/groups`)).json<{ items: Item<Group>[] }>().items;
  const symbols = async (platform = mt5) => (await call("GET", `/api/tradePlatforms/${platform}/config/symbols`)).json<{ items: Item<TradeSymbol>[] }>().items;
  const apply = async (changes: unknown[], platform = mt5, person: Person = ada) =>
    call("POST", `/api/tradePlatforms/${platform}/config/apply`, { changes }, person);
  const results = async (changes: unknown[], platform = mt5) => {
    const res = await apply(changes, platform);
    expect(res.statusCode, res.body).toBe(200);
    return res.json<{ results: Result[] }>().results;
  };
  const audits = (platform: string) =>
    t.ctx.database.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.organizationId, org), like(auditEvents.targetId, `${platform}/%`)));
  const usdPercent = (items: Item<Group>[]) => items.filter((i) => i.object.currency === "USD" && i.object.marginLevelMode === "percent");

  beforeAll(async () => {
    t = await createTestApp();
    tokens = await tokenFactory(t.ctx);
    org = await signUp(t, tokens, ada);
    eveOrg = await signUp(t, tokens, eve);
    await addMember(t.ctx, org, reader, { [moduleClaimType("tradePlatforms", org)]: "read" });
    await addMember(t.ctx, org, outsider, { [moduleClaimType("users", org)]: "read" });
    mt5 = await simulated("MT5", "Sim MT5");
    matchTrader = await simulated("MatchTrader", "Sim Match-Trader");
  }, 60_000);
  afterAll(() => t?.close());

  it("reads groups, symbols and holidays with each one's version; Match-Trader's groups are its offers and it has no holidays", async () => {
    const g = await groups();
    expect(g.length).toBeGreaterThan(1);
    for (const item of g) expect(item.version).toBe(configVersion(item.object));
    const s = await symbols();
    expect(s.map((i) => i.object.name)).toContain("EURUSD");
    const holidays = await call("GET", `/api/tradePlatforms/${mt5}/config/holidays`);
    expect(holidays.json()).toMatchObject({ platform: "MT5", supported: true, message: null, version: expect.stringMatching(/^c1-/) });

    const offers = await groups(matchTrader);
    expect(offers.length).toBeGreaterThan(0);
    expect(offers[0]?.object.native).toMatchObject({ platform: "MatchTrader", offerId: expect.any(String) });
    const none = await call("GET", `/api/tradePlatforms/${matchTrader}/config/holidays`);
    expect(none.json()).toMatchObject({ platform: "MatchTrader", supported: false, message: expect.stringMatching(/holidays/), holidays: [] });
  });

  it("applies two groups' margin call levels and a symbol's contract size exactly as sent, audits before/after, and reverts one from the history", async () => {
    const [first, second] = usdPercent(await groups());
    if (!first || !second) throw new Error("two USD groups in percent expected");
    const eurusd = (await symbols()).find((i) => i.object.name === "EURUSD");
    if (!eurusd) throw new Error("EURUSD expected");
    const call1 = first.object.marginCall + 17;
    const call2 = second.object.marginCall + 23;
    const answered = await results([
      { kind: "group", name: first.object.name, expected: first.version, patch: { marginCall: call1 } },
      { kind: "group", name: second.object.name, expected: second.version, patch: { marginCall: call2 } },
      { kind: "symbol", name: "EURUSD", expected: eurusd.version, patch: { contractSize: 50_000 } },
    ]);
    expect(answered.map((r) => r.status)).toEqual(["applied", "applied", "applied"]);
    expect(answered[0]?.object).toEqual({ ...first.object, marginCall: call1 });
    expect(answered[0]?.version).toBe(configVersion({ ...first.object, marginCall: call1 }));

    // On the server: through the connector and in the simulation itself.
    const connector = await t.app.platforms.connectorFor(org, mt5);
    const now = await connector.listGroups();
    expect(now.find((g) => g.name === first.object.name)).toEqual({ ...first.object, marginCall: call1 });
    expect(now.find((g) => g.name === second.object.name)?.marginCall).toBe(call2);
    const engine = t.app.platforms.simulatedServer(mt5)?.engine;
    expect(engine?.groups().find((g) => g.name === second.object.name)?.marginCall).toBe(call2);
    expect((await connector.listSymbols()).find((s) => s.name === "EURUSD")?.contractSize).toBe(50_000);

    const audited = await audits(mt5);
    expect(audited.find((a) => a.targetId === `${mt5}/${first.object.name}`)).toMatchObject({
      action: "serverConfig.group.changed",
      targetType: "serverConfig.group",
      actorSub: ada.sub,
      before: { marginCall: first.object.marginCall },
      after: { marginCall: call1 },
    });
    expect(audited.find((a) => a.targetId === `${mt5}/EURUSD`)).toMatchObject({
      action: "serverConfig.symbol.changed",
      before: { contractSize: eurusd.object.contractSize },
      after: { contractSize: 50_000 },
    });

    // The history of one object, with its revert staged against the current version.
    const history = await call("GET", `/api/tradePlatforms/${mt5}/config/history?kind=group&name=${encodeURIComponent(second.object.name)}`);
    expect(history.statusCode, history.body).toBe(200);
    const [entry, ...others] = history.json<{ entries: Entry[] }>().entries;
    expect(others).toHaveLength(0);
    expect(entry).toMatchObject({ kind: "group", name: second.object.name, revert: { marginCall: second.object.marginCall } });
    const current = usdPercent(await groups()).find((i) => i.object.name === second.object.name);
    const reverted = await results([{ kind: "group", name: second.object.name, expected: current?.version, patch: entry?.revert }]);
    expect(reverted[0]).toMatchObject({ status: "applied", object: second.object, version: second.version });
    expect(engine?.groups().find((g) => g.name === second.object.name)?.marginCall).toBe(second.object.marginCall);
    const all = (await call("GET", `/api/tradePlatforms/${mt5}/config/history`)).json<{ entries: Entry[] }>().entries;
    expect(all).toHaveLength(4);
  });

  it("refuses a change to an object changed meanwhile, with the server's object and version, and applies the others", async () => {
    const [group] = usdPercent(await groups());
    if (!group) throw new Error("a group expected");
    const connector = await t.app.platforms.connectorFor(org, mt5);
    const meanwhile = await connector.updateGroup(group.object.name, { defaultLeverage: 222 }, group.version);
    const eurusd = (await symbols()).find((i) => i.object.name === "EURUSD");
    const answered = await results([
      { kind: "group", name: group.object.name, expected: group.version, patch: { marginCall: group.object.marginCall + 1 } },
      { kind: "symbol", name: "EURUSD", expected: eurusd?.version, patch: { swapLong: -1.5 } },
    ]);
    expect(answered[0]).toMatchObject({
      status: "changed",
      message: expect.stringMatching(/changed on the trading server since it was read/),
      current: { ...meanwhile, native: expect.anything() },
      currentVersion: configVersion(meanwhile),
    });
    expect(answered[1]).toMatchObject({ status: "applied" });
    expect((await connector.listGroups()).find((g) => g.name === group.object.name)).toEqual(meanwhile);
    // The refused change recorded nothing; the applied one did.
    const recorded = await audits(mt5);
    expect(
      recorded.filter((a) => a.targetId === `${mt5}/${group.object.name}` && (a.after as Partial<Group>).marginCall === group.object.marginCall + 1),
    ).toHaveLength(0);
    expect(recorded.find((a) => a.targetId === `${mt5}/EURUSD` && (a.after as Partial<TradeSymbol>).swapLong === -1.5)).toBeDefined();
  });

  it("answers each of the platforms' rules as a refusal in its words, changing nothing and recording nothing", async () => {
    const [group] = usdPercent(await groups());
    const eurusd = (await symbols()).find((i) => i.object.name === "EURUSD");
    if (!group || !eurusd) throw new Error("objects expected");
    const g = (patch: object) => ({ kind: "group", name: group.object.name, expected: group.version, patch });
    const s = (patch: object) => ({ kind: "symbol", name: "EURUSD", expected: eurusd.version, patch });
    const cases: [unknown, RegExp][] = [
      [g({ marginCall: 10, stopOut: 20 }), /margin call level \(10 %\) must be above the stop-out level \(20 %\)/],
      [g({ defaultLeverage: 0 }), /default leverage must be a whole number from 1 to 10000/],
      [g({ marginCall: 100.555 }), /margin call level must be a percentage from 0 to 10000 with at most two decimals/],
      [g({ currency: "EUR" }), /currency cannot be changed/],
      [g({ name: "Renamed" }), /name cannot be changed/],
      [g({ colour: "red" }), /"colour" is not a field of a group/],
      [g({ maxPositions: -1 }), /maximum of open positions/],
      [g({ symbols: "Forex\\*,,Metals\\*" }), /hold an empty mask/],
      [g({ commissionPerLot: 1.5 }), /commission per lot must be an amount in cents/],
      [s({ volumeMin: 20_000, volumeMax: 10_000 }), /minimum volume \(2 lot\) must not be above the maximum \(1 lot\)/],
      [s({ volumeStep: 3000 }), /volume step .* must divide/],
      [s({ digits: 9 }), /Digits must be a whole number from 0 to 8/],
      [s({ contractSize: 0 }), /contract size must be a positive number/],
      [s({ spread: -1 }), /spread must be a whole number of points/],
      [s({ maxLeverage: 20_000 }), /maximum leverage must be a whole number/],
      [s({ path: "" }), /symbol group is required/],
      [s({ profitCurrency: "JPY" }), /profit currency cannot be changed/],
      [
        s({
          sessions: [
            { day: 1, from: 0, to: 600 },
            { day: 1, from: 500, to: 900 },
          ],
        }),
        /Two Monday sessions overlap/,
      ],
      [s({ sessions: [{ day: 8, from: 0, to: 60 }] }), /Each session is a weekday/],
      [{ kind: "group", name: "NoSuchGroup", expected: group.version, patch: {} }, /no group "NoSuchGroup"/],
    ];
    const before = (await audits(mt5)).length;
    const answered = await results(cases.map(([change]) => change));
    answered.forEach((r, i) => {
      expect(r.status, JSON.stringify(cases[i]?.[0])).toBe("invalid");
      expect(r.message).toMatch(cases[i]?.[1] ?? /never/);
    });
    const holidays = (await call("GET", `/api/tradePlatforms/${mt5}/config/holidays`)).json<{ version: string; holidays: Holiday[] }>();
    const day: Holiday = { date: "2026-02-30", from: 0, to: 0, symbols: "*", description: "Not a day", enabled: true };
    const [badDay] = await results([{ kind: "holidays", expected: holidays.version, holidays: [...holidays.holidays, day] }]);
    expect(badDay).toMatchObject({ status: "invalid", message: expect.stringMatching(/the date must be a real day/) });
    // Match-Trader's own: what it cannot take.
    const [offer] = await groups(matchTrader);
    const [mtRefusal] = await results(
      [{ kind: "group", name: offer?.object.name, expected: offer?.version, patch: { fifoClose: !offer?.object.fifoClose } }],
      matchTrader,
    );
    expect(mtRefusal).toMatchObject({ status: "invalid", message: expect.stringMatching(/Match-Trader has no FIFO close rule/) });

    expect((await groups()).find((i) => i.object.name === group.object.name)?.version).toBe(group.version);
    expect((await audits(mt5)).length).toBe(before);
  });

  it("applies the whole holiday list and reverts it from the history", async () => {
    const read = (await call("GET", `/api/tradePlatforms/${mt5}/config/holidays`)).json<{ version: string; holidays: Holiday[] }>();
    const day: Holiday = { date: "2026-12-25", from: 0, to: 0, symbols: "*", description: "Christmas", enabled: true };
    const [applied] = await results([{ kind: "holidays", expected: read.version, holidays: [...read.holidays, day] }]);
    expect(applied?.status).toBe("applied");
    expect(t.app.platforms.simulatedServer(mt5)?.engine.holidays()).toContainEqual(day);
    const [entry] = (await call("GET", `/api/tradePlatforms/${mt5}/config/history?kind=holidays`)).json<{ entries: Entry[] }>().entries;
    expect(entry).toMatchObject({ kind: "holidays", name: null, revert: read.holidays, after: { holidays: [...read.holidays, day] } });
    const [reverted] = await results([{ kind: "holidays", expected: applied?.version, holidays: entry?.revert }]);
    expect(reverted).toMatchObject({ status: "applied", version: read.version });
  });

  it("answers bad shapes with a readable 400 and sends nothing", async () => {
    const [group] = usdPercent(await groups());
    const before = (await audits(mt5)).length;
    for (const [changes, message] of [
      [[], "Send at least one change"],
      [[{ kind: "offer", name: "x", expected: group?.version, patch: {} }], "kind is group, symbol or holidays"],
      [[{ kind: "group", name: group?.object.name, expected: "v1", patch: {} }], "c1- and 16 hex digits"],
      [[{ kind: "group", name: group?.object.name, expected: group?.version, patch: { marginCall: "120" } }], "The margin call level must be a number"],
      [[{ kind: "group", name: group?.object.name, expected: group?.version, patch: { marginMode: "both" } }], "hedging or netting"],
      [[{ kind: "symbol", name: "EURUSD", expected: group?.version, patch: { tradeMode: "sometimes" } }], "full, close only or disabled"],
      [[{ kind: "holidays", expected: group?.version, holidays: [{ date: "2026-01-01" }] }], "must be"],
    ] as const) {
      const res = await apply(changes as unknown as unknown[]);
      expect(res.statusCode, JSON.stringify(changes)).toBe(400);
      expect(res.json<{ message: string }>().message).toContain(message);
    }
    expect((await call("GET", `/api/tradePlatforms/not-a-uuid/config/groups`)).statusCode).toBe(400);
    expect((await call("GET", `/api/tradePlatforms/${mt5}/config/history?kind=offer`)).statusCode).toBe(400);
    expect((await audits(mt5)).length).toBe(before);
  });

  it("needs Module.tradePlatforms: read to read, write to apply; keeps organizations apart", async () => {
    const [group] = usdPercent(await groups());
    const change = { kind: "group", name: group?.object.name, expected: group?.version, patch: { marginCall: (group?.object.marginCall ?? 0) + 5 } };
    for (const path of ["groups", "symbols", "holidays", "history"])
      expect((await call("GET", `/api/tradePlatforms/${mt5}/config/${path}`, undefined, reader)).statusCode, path).toBe(200);
    expect((await apply([change], mt5, reader)).statusCode).toBe(403);
    expect((await call("GET", `/api/tradePlatforms/${mt5}/config/groups`, undefined, outsider)).statusCode).toBe(403);
    expect((await apply([change], mt5, outsider)).statusCode).toBe(403);
    // Eve's organization does not see Ada's platform; as a non-member of Ada's, not even the organization.
    for (const path of ["groups", "symbols", "holidays", "history"])
      expect((await call("GET", `/api/tradePlatforms/${mt5}/config/${path}`, undefined, eve, eveOrg)).statusCode, path).toBe(404);
    expect((await apply([change], mt5, eve)).statusCode).toBe(404);
    expect((await call("POST", `/api/tradePlatforms/${mt5}/config/apply`, { changes: [change] }, eve, eveOrg)).statusCode).toBe(404);
    expect((await call("GET", `/api/tradePlatforms/${mt5}/config/groups`, undefined, eve, org)).statusCode).toBe(404);
    expect((await groups()).find((i) => i.object.name === group?.object.name)?.version).toBe(group?.version);
  });
});
