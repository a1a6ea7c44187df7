/**
 * Flexible Leverage in its two places (docs/flexible-leverage.md "Where the engine runs"), through
 * the real server: the same rules saved on two simulated MT5 servers of one population (one seed),
 * one running the Flexible Leverage plugin, the other without it (its plugin removed), so Toolbox
 * keeps and runs its rules (the runner, setLeverage through the connector). The leverages compare
 * account by account, at a weekday time and in a weekend window (the simulator's clock route, a
 * clock the test controls). Every change is recorded once (`leverage_changes`, a second round
 * sends nothing), told to the inbox, and read by the account's route
 * (`GET /api/accounts/{platformId}/{login}/leverageChanges`): `Module.users` read, another
 * organization's platform 404, a bad login 400. A second node's runner finds the platform's lease
 * taken; a plugin round heard again (a takeover replays it) records nothing more.
 */
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, expect, it } from "vitest";
import { moduleClaimType } from "../../core/access.ts";
import type { FlexibleLeverageView, LeverageChangeView } from "../../core/schemas/flexibleLeverage.ts";
import type { Account } from "../../core/trading/index.ts";
import { leverageChanges, notifications } from "../../server/db/schema.ts";
import { accountsMirrorOf } from "../../server/modules/accounts/mirror/plugin.ts";
import { recordPluginChanges } from "../../server/modules/flexibleLeverage/changes.ts";
import { FlexibleLeverageRunner, flexibleLeverageRunnerOf, runnerDepsOf } from "../../server/modules/flexibleLeverage/runner.ts";
import { describeDb } from "../helpers/db.ts";
import { createTestApp, type TestApp } from "../helpers/testApp.ts";
import { apiHeaders, newPerson, tokenFactory, type Person, type TokenFactory } from "../helpers/tokens.ts";
import { waitFor } from "./platformsHarness.ts";
import { addMember, signUp } from "./support/fixtures.ts";

const FL5 = "CPlugin.MT5Plugin.FlexibleLeverage";
// A Wednesday, then the Saturday after (the server's clock, UTC+02:00 on a simulated MT5 server).
const WEDNESDAY = "2026-12-02T10:00:00Z";
const SATURDAY = "2026-12-05T10:00:00Z";

describeDb("Flexible Leverage on the server's plugin and from Toolbox: same leverages, each change recorded once", () => {
  let t: TestApp;
  let tokens: TokenFactory;
  const ada = newPerson("Ada Risk");
  const noUsers = newPerson("Nico NoAccounts");
  const eve = newPerson("Eve Elsewhere");
  let org: string;
  let eveOrg: string;
  let withPlugin: string;
  let without: string;

  const call = async (method: "GET" | "PUT" | "POST", url: string, payload?: unknown, person: Person = ada, organization = org) =>
    t.app.inject({
      method,
      url,
      headers: apiHeaders(await tokens.mint(person), organization),
      ...(payload === undefined ? {} : { payload: payload as object }),
    });
  const simulated = async (name: string) => {
    const res = await call("POST", "/api/tradePlatforms", {
      type: "MT5",
      name,
      timeZone: "UTC",
      connection: { kind: "simulated", accounts: 30, tradeRate: 0, seed: 11 },
    });
    expect(res.statusCode, res.body).toBe(201);
    const id = res.json<{ id: string }>().id;
    await accountsMirrorOf(t.ctx)!.whenSynced(id, 30_000);
    return id;
  };
  const accountsOf = async (platformId: string): Promise<Account[]> => {
    const connector = await t.app.platforms.connectorFor(org, platformId);
    return (await connector.listAccounts({ limit: 1000 })).items;
  };
  const leveragesOf = async (platformId: string) => new Map((await accountsOf(platformId)).map((a) => [a.login, a.leverage]));
  const rowsOf = (platformId: string) => t.ctx.database.db.select().from(leverageChanges).where(eq(leverageChanges.platformId, platformId));
  const clock = async (platformId: string, serverClock: string | null) => {
    const res = await call("POST", `/api/tradePlatforms/${platformId}/simulator/clock`, { serverClock });
    expect(res.statusCode, res.body).toBe(200);
    return res.json<{ serverTime: string; changes: number }>();
  };
  const runner = () => flexibleLeverageRunnerOf(t.ctx)!;

  let before: Map<string, number>;
  let exposed: Set<string>;
  let settings: object;

  beforeAll(async () => {
    t = await createTestApp();
    tokens = await tokenFactory(t.ctx);
    org = await signUp(t, tokens, ada);
    eveOrg = await signUp(t, tokens, eve);
    await addMember(t.ctx, org, noUsers, { [moduleClaimType("plugins", org)]: "read" });
    withPlugin = await simulated("Sim MT5 with the plugin");
    without = await simulated("Sim MT5 without the plugin");
    // The second server runs no Flexible Leverage plugin (a real server without it).
    t.app.platforms.simulatedServer(without)!.engine.ctx.state.plugins.clear();
    // Both servers' clocks on a weekday, so the weekend window is closed.
    await clock(withPlugin, WEDNESDAY);
    await clock(without, WEDNESDAY);

    before = await leveragesOf(withPlugin);
    expect(await leveragesOf(without)).toEqual(before); // one population
    const connector = await t.app.platforms.connectorFor(org, withPlugin);
    exposed = new Set((await connector.openPositions()).map((p) => p.login));
    // Equity of an account without positions is its balance and credit (the same on both servers); lots are exact.
    const calm = (await accountsOf(withPlugin)).filter((a) => !exposed.has(a.login)).map((a) => a.equity / 100);
    calm.sort((a, b) => a - b);
    const median = Math.floor(calm[Math.floor(calm.length / 2)]!);
    settings = {
      managers: ["1000"],
      rules: [
        {
          name: "Weekend",
          groups: "*",
          mode: "equity",
          tiers: [],
          windows: [{ kind: "weekend", from: { day: "friday", time: "21:00" }, to: { day: "sunday", time: "21:00" }, leverage: 5 }],
        },
        { name: "Exposure", groups: "*", mode: "exposureLots", tiers: [{ threshold: 0.01, leverage: 7 }] },
        {
          name: "Equity",
          groups: "*",
          mode: "equity",
          tiers: [
            { threshold: 0, leverage: 33 },
            { threshold: median, leverage: 15 },
          ],
        },
      ],
    };
  }, 120_000);
  afterAll(() => t?.close());

  it("gives the same leverages from the server's plugin and from Toolbox, account by account", async () => {
    const saved = await call("PUT", `/api/tradePlatforms/${withPlugin}/plugins/${FL5}/flexibleLeverage`, settings);
    expect(saved.statusCode, saved.body).toBe(200);
    expect(saved.json<FlexibleLeverageView>().runBy).toBe("plugin");
    // The server without the plugin: the same route keeps the rules in Toolbox, and Toolbox runs them.
    const kept = await call("PUT", `/api/tradePlatforms/${without}/plugins/${FL5}/flexibleLeverage`, settings);
    expect(kept.statusCode, kept.body).toBe(200);
    expect(kept.json<FlexibleLeverageView>()).toMatchObject({
      runBy: "toolbox",
      settings: { rules: [{ name: "Weekend" }, { name: "Exposure" }, { name: "Equity" }] },
    });
    await runner().round(without);

    const byPlugin = await leveragesOf(withPlugin);
    const byToolbox = await leveragesOf(without);
    expect(byToolbox).toEqual(byPlugin);
    const changed = [...byPlugin].filter(([login, leverage]) => before.get(login) !== leverage);
    expect(changed.length).toBeGreaterThanOrEqual(5);
    // Both ladders decided some accounts: the exposure rule the accounts holding positions, the equity rule the others.
    expect(changed.every(([, l]) => [7, 15, 33].includes(l))).toBe(true);
    expect(changed.some(([login]) => exposed.has(login))).toBe(true);
    expect(changed.some(([login]) => !exposed.has(login))).toBe(true);

    // Each change recorded once, where its engine ran.
    const fromPlugin = await waitFor(async () => {
      const rows = await rowsOf(withPlugin);
      return rows.length >= changed.length && rows;
    }, "the plugin's changes to be recorded");
    expect(fromPlugin).toHaveLength(changed.length);
    expect(fromPlugin.every((r) => r.source === "plugin" && r.status === "applied")).toBe(true);
    const fromToolbox = await rowsOf(without);
    expect(fromToolbox).toHaveLength(changed.length);
    expect(fromToolbox.every((r) => r.source === "toolbox" && r.status === "applied")).toBe(true);
    for (const row of fromToolbox) expect(row.toLeverage).toBe(byToolbox.get(row.login));

    // Another round finds nothing to do: nothing sent or recorded twice.
    expect((await runner().round(without)).applied).toEqual([]);
    expect(await rowsOf(without)).toHaveLength(changed.length);
  }, 60_000);

  it("opens a weekend window at the clock the test sets, in both places alike", async () => {
    const plugin = await clock(withPlugin, SATURDAY);
    const toolbox = await clock(without, SATURDAY);
    expect(plugin.serverTime.slice(0, 16)).toBe("2026-12-05T10:00"); // a platform in UTC
    expect(plugin.changes).toBeGreaterThan(0);
    expect(toolbox.changes).toBe(plugin.changes);
    const byPlugin = await leveragesOf(withPlugin);
    expect(await leveragesOf(without)).toEqual(byPlugin);
    expect([...byPlugin.values()].every((l) => l === 5)).toBe(true);

    // Back on a weekday: the ladders again, alike.
    await clock(withPlugin, WEDNESDAY);
    await clock(without, WEDNESDAY);
    expect(await leveragesOf(without)).toEqual(await leveragesOf(withPlugin));
    expect([...(await leveragesOf(without)).values()].some((l) => l === 5)).toBe(false);
  }, 60_000);

  it("settles an intent left pending without sending a change twice", async () => {
    const [account] = await accountsOf(without);
    // An intent written before a crash whose change had reached the server.
    await t.ctx.database.db.insert(leverageChanges).values({
      organizationId: org,
      platformId: without,
      login: account!.login,
      key: `toolbox:${account!.login}:999`,
      fromLeverage: 1,
      toLeverage: account!.leverage,
      reason: "before a crash",
      source: "toolbox",
      status: "pending",
      changedAt: new Date(),
    });
    const round = await runner().round(without);
    expect(round.applied.map((r) => r.key)).toEqual([`toolbox:${account!.login}:999`]);
    const [row] = await t.ctx.database.db
      .select()
      .from(leverageChanges)
      .where(and(eq(leverageChanges.platformId, without), eq(leverageChanges.key, `toolbox:${account!.login}:999`)));
    expect(row!.status).toBe("applied");
    expect((await leveragesOf(without)).get(account!.login)).toBe(account!.leverage);
  }, 30_000);

  it("runs on one node at a time, and a plugin's round heard again (a takeover's replay) records nothing more", async () => {
    const server = t.app.platforms.simulatedServer(without)!;
    const otherNode = new FlexibleLeverageRunner(runnerDepsOf(t.app, "node-b"));
    server.setServerClock(Date.parse(SATURDAY));
    const [here, there] = await Promise.all([runner().round(without), otherNode.round(without)]);
    expect(there).toMatchObject({ skipped: "another node runs this platform's rules", applied: [] });
    expect(here.applied.length).toBe((await accountsOf(without)).length);
    const keys = (await rowsOf(without)).map((r) => r.key);
    expect(new Set(keys).size).toBe(keys.length);
    server.setServerClock(Date.parse(WEDNESDAY));
    await runner().round(without);

    const recorded = (await rowsOf(withPlugin))[0]!;
    const deps = { db: t.ctx.database.db, publish: () => Promise.resolve(), warn: () => {} };
    const again = await recordPluginChanges(deps, withPlugin, [
      {
        login: recorded.login,
        from: recorded.fromLeverage,
        to: recorded.toLeverage,
        ruleName: recorded.ruleName,
        tierIndex: recorded.tierIndex,
        windowKind: recorded.windowKind,
        reason: recorded.reason,
        at: recorded.changedAt.getTime(),
      },
    ]);
    expect(again).toEqual([]);
  }, 60_000);

  it("lists an account's changes newest first, with the rule, tier and reason; tells the inbox", async () => {
    // The first change of an account the equity ladder decided.
    const row = (await rowsOf(withPlugin)).sort((a, b) => a.recordedAt.getTime() - b.recordedAt.getTime()).find((r) => r.ruleName === "Equity")!;
    const res = await call("GET", `/api/accounts/${withPlugin}/${row.login}/leverageChanges`);
    expect(res.statusCode, res.body).toBe(200);
    const list = res.json<LeverageChangeView[]>();
    expect(list).toHaveLength(3); // the ladder, the weekend, the ladder again
    expect(list.map((c) => c.rule)).toEqual(["Equity", "Weekend", "Equity"]); // newest first
    expect(list.at(-1)).toMatchObject({ from: row.fromLeverage, to: row.toLeverage, rule: "Equity", source: "plugin", status: "applied" });
    expect(list.at(-1)!.reason).toMatch(/^rule 'Equity', tier ≥ /);
    expect(list[1]).toMatchObject({ rule: "Weekend", window: "weekend", tier: null, reason: "rule 'Weekend', weekend window → 1:5" });

    const toolboxRow = (await rowsOf(without)).find((r) => r.status === "applied")!;
    const fromToolbox = (await call("GET", `/api/accounts/${without}/${toolboxRow.login}/leverageChanges`)).json<LeverageChangeView[]>();
    expect(fromToolbox.some((c) => c.source === "toolbox")).toBe(true);

    const notices = await waitFor(async () => {
      const rows = await t.ctx.database.db
        .select()
        .from(notifications)
        .where(and(eq(notifications.organizationId, org), eq(notifications.type, "leverageChanged")));
      return rows.some((n) => n.body.includes(`account ${row.login} `)) && rows;
    }, "the inbox to hear of the changes");
    expect(notices.some((n) => n.body.includes("Toolbox (Flexible Leverage rules)"))).toBe(true);
    expect(notices.some((n) => n.body.includes("rule 'Equity', tier"))).toBe(true);
  }, 30_000);

  it("guards the account's changes: Module.users read, organizations apart, a bad login refused", async () => {
    const row = (await rowsOf(withPlugin))[0]!;
    expect((await call("GET", `/api/accounts/${withPlugin}/${row.login}/leverageChanges`, undefined, noUsers)).statusCode).toBe(403);
    expect((await call("GET", `/api/accounts/${withPlugin}/${row.login}/leverageChanges`, undefined, eve, eveOrg)).statusCode).toBe(404);
    expect((await call("GET", `/api/accounts/${withPlugin}/${row.login}/leverageChanges`, undefined, eve, org)).statusCode).toBe(404);
    const bad = await call("GET", `/api/accounts/${withPlugin}/not%20a%20login/leverageChanges`);
    expect(bad.statusCode).toBe(400);
    expect(bad.json<{ message: string }>().message).toMatch(/login/);
    // The simulator's clock: tradePlatforms write, simulated platforms of the organization only, a readable 400.
    expect((await call("POST", `/api/tradePlatforms/${withPlugin}/simulator/clock`, { serverClock: null }, eve, eveOrg)).statusCode).toBe(404);
    expect((await call("POST", `/api/tradePlatforms/${withPlugin}/simulator/clock`, { serverClock: "Saturday" })).statusCode).toBe(400);
  }, 30_000);
});
