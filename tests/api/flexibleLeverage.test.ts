/**
 * /api/tradePlatforms/{id}/plugins/{pluginId}/flexibleLeverage through the real server
 * (docs/flexible-leverage.md "API"), on simulated MT5 and MT4 servers: the plugin's rules read from
 * its parameters with warnings; the preview names the account that would change and why (and
 * "what if" an equity or a weekend time); a saved rule changes that account's leverage on the
 * server (read back through the connector), is kept as `Rules.1…N` of at most 127 characters and
 * audited with before and after (the history a revert loads from); MT4's room is refused in words; `Module.plugins` read/write;
 * another organization's platform is 404; invalid rules are a 400 with the schema's messages.
 */
// Databases: PGlite and PostgreSQL (the preview's accounts read back as one JSON text).
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, expect, it } from "vitest";
import { moduleClaimType } from "../../core/access.ts";
import type { FlexibleLeverageHistory, FlexibleLeveragePreview, FlexibleLeverageView } from "../../core/schemas/flexibleLeverage.ts";
import type { Account, Group } from "../../core/trading/index.ts";
import { auditEvents } from "../../server/db/schema.ts";
import { accountsMirrorOf } from "../../server/modules/accounts/mirror/plugin.ts";
import { describeDb } from "../helpers/db.ts";
import { createTestApp, type TestApp } from "../helpers/testApp.ts";
import { apiHeaders, newPerson, tokenFactory, type Person, type TokenFactory } from "../helpers/tokens.ts";
import { addMember, signUp } from "./support/fixtures.ts";

const FL5 = "CPlugin.MT5Plugin.FlexibleLeverage";
const FL4 = "CPlugin.MT4Plugin.FlexibleLeverage";
const CANDIDATES = [2, 3, 5, 7, 10, 15, 20, 25, 30, 33, 40, 50];

describeDb("Flexible Leverage: a plugin's rules, their preview and their effect on the server", () => {
  let t: TestApp;
  let tokens: TokenFactory;
  const ada = newPerson("Ada Risk");
  const reader = newPerson("Rita Reader");
  const noPlugins = newPerson("Nico NoPlugins");
  const eve = newPerson("Eve Elsewhere");
  let org: string;
  let eveOrg: string;
  let mt5: string;
  let mt4: string;
  // An account without positions (its equity does not move), its group, and the leverages the test gives it.
  let target: Account;
  let group: Group;
  let rich: number;
  let modest: number;
  let weekend: number;

  const call = async (method: "GET" | "PUT" | "POST", url: string, payload?: unknown, person: Person = ada, organization = org) =>
    t.app.inject({
      method,
      url,
      headers: apiHeaders(await tokens.mint(person), organization),
      ...(payload === undefined ? {} : { payload: payload as object }),
    });
  const simulated = async (type: "MT4" | "MT5", name: string) => {
    const res = await call("POST", "/api/tradePlatforms", {
      type,
      name,
      timeZone: "UTC",
      connection: { kind: "simulated", accounts: 20, tradeRate: 0, seed: 7 },
    });
    expect(res.statusCode, res.body).toBe(201);
    const id = res.json<{ id: string }>().id;
    await accountsMirrorOf(t.ctx)!.whenSynced(id, 30_000);
    return id;
  };
  const url = (platform = mt5, plugin = FL5) => `/api/tradePlatforms/${platform}/plugins/${plugin}/flexibleLeverage`;
  const auditOf = (platformId: string, plugin: string) =>
    t.ctx.database.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.organizationId, org), eq(auditEvents.action, "flexibleLeverage.changed"), eq(auditEvents.targetId, `${platformId}/${plugin}`)));
  const equityOf = (a: Account) => Math.floor(a.equity) / 100;
  const richRule = () => ({
    name: "Rich",
    groups: group.name,
    mode: "equity",
    tiers: [
      { threshold: 0, leverage: modest },
      { threshold: equityOf(target), leverage: rich },
    ],
  });

  beforeAll(async () => {
    t = await createTestApp();
    tokens = await tokenFactory(t.ctx);
    org = await signUp(t, tokens, ada);
    eveOrg = await signUp(t, tokens, eve);
    await addMember(t.ctx, org, reader, { [moduleClaimType("plugins", org)]: "read" });
    await addMember(t.ctx, org, noPlugins, { [moduleClaimType("users", org)]: "read" });
    mt5 = await simulated("MT5", "Sim MT5");
    mt4 = await simulated("MT4", "Sim MT4");
    const connector = await t.app.platforms.connectorFor(org, mt5);
    const exposed = new Set((await connector.openPositions()).map((p) => p.login));
    const groups = await connector.listGroups();
    target = (await connector.listAccounts({ limit: 100 })).items.find(
      (a) => !exposed.has(a.login) && a.equity >= 100_00 && groups.find((g) => g.name === a.group)!.defaultLeverage >= 100,
    )!;
    group = groups.find((g) => g.name === target.group)!;
    [rich, modest, weekend] = CANDIDATES.filter((l) => l !== target.leverage && l <= group.defaultLeverage) as [number, number, number];
  }, 90_000);
  afterAll(() => t?.close());

  it("reads the plugin's settings from its parameters, with the server's groups, symbols and clock", async () => {
    const res = await call("GET", url());
    expect(res.statusCode, res.body).toBe(200);
    const view = res.json<FlexibleLeverageView>();
    expect(view).toMatchObject({
      pluginId: FL5,
      platformType: "MT5",
      enabled: true,
      settings: { managers: ["1000"], rules: [] },
      unreadable: null,
      warnings: [],
    });
    expect(view.groups).toContainEqual({ name: group.name, currency: group.currency, defaultLeverage: group.defaultLeverage });
    expect(view.symbols.some((s) => s.includes("\\"))).toBe(true);
    expect(view.serverClock.zone).toBe("UTC+00:00");
    expect(view.capacity.limit).toBeNull();
  });

  it("previews drafted rules: the account that would change and why, what if its equity or a weekend", async () => {
    const settings = {
      managers: ["1000"],
      rules: [
        {
          name: "Weekend",
          groups: group.name,
          mode: "equity",
          windows: [{ kind: "weekend", from: { day: "saturday", time: "00:00" }, to: { day: "monday", time: "00:00" }, leverage: weekend }],
        },
        richRule(),
      ],
    };
    const wednesday = "2026-12-02T12:00";
    const res = await call("POST", `${url()}/preview`, { settings, login: target.login, whatIf: { serverTime: wednesday } });
    expect(res.statusCode, res.body).toBe(200);
    const preview = res.json<FlexibleLeveragePreview>();
    expect(preview.at).toBe(wednesday);
    expect(preview.rows.find((r) => r.login === target.login)).toMatchObject({
      currentLeverage: target.leverage,
      leverage: rich,
      changed: true,
      ruleName: "Rich",
      tierIndex: 1,
      reason: `rule 'Rich', tier ≥ ${equityOf(target).toLocaleString("en-US", { maximumFractionDigits: 2 })} ${group.currency} equity → 1:${rich}`,
    });
    expect(preview.rows.every((r) => r.login.startsWith(target.login))).toBe(true);
    expect(preview.counts.accounts).toBe(20);
    expect(preview.counts.changed).toBeGreaterThanOrEqual(1);
    expect(preview.counts.byRule[1]).toMatchObject({ ruleName: "Rich", accounts: expect.any(Number) });

    const poorer = (
      await call("POST", `${url()}/preview`, { settings, login: target.login, whatIf: { serverTime: wednesday, equity: 10 } })
    ).json<FlexibleLeveragePreview>();
    expect(poorer.rows[0]).toMatchObject({ login: target.login, leverage: modest, tierIndex: 0, equity: 10 });
    const saturday = (
      await call("POST", `${url()}/preview`, { settings, login: target.login, whatIf: { serverTime: "2026-12-05T12:00" } })
    ).json<FlexibleLeveragePreview>();
    expect(saturday.rows[0]).toMatchObject({ leverage: weekend, windowKind: "weekend", reason: `rule 'Weekend', weekend window → 1:${weekend}` });
    // Only the changed, paged.
    const changed = (await call("POST", `${url()}/preview`, { settings, onlyChanged: true, limit: 1 })).json<FlexibleLeveragePreview>();
    expect(changed.rows).toHaveLength(1);
    expect(changed.total).toBe(changed.counts.changed);
  });

  it("saves rules into the plugin: the account's leverage changes on the server, and the change is audited", async () => {
    const settings = { managers: ["1000", "1001"], rules: [richRule()] };
    const res = await call("PUT", url(), settings);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json<FlexibleLeverageView>().settings).toMatchObject({
      managers: ["1000", "1001"],
      rules: [{ name: "Rich", groups: group.name, mode: "equity" }],
    });
    const connector = await t.app.platforms.connectorFor(org, mt5);
    expect((await connector.getAccount(target.login)).leverage).toBe(rich);
    const plugin = (await connector.listPlugins()).find((p) => p.id === FL5)!;
    expect(plugin.parameters.map((p) => p.name)).toEqual(["Managers", "Rules.1"]);
    const [audit, ...more] = await auditOf(mt5, FL5);
    expect(more).toHaveLength(0);
    expect(audit).toMatchObject({
      actorSub: ada.sub,
      targetType: "plugin",
      before: { settings: { managers: ["1000"], rules: [] } },
      after: { settings: { managers: ["1000", "1001"] } },
    });
    expect((await call("GET", url())).json<FlexibleLeverageView>().settings.rules[0]).toMatchObject({ name: "Rich", tiers: richRule().tiers });
    // The save is in the history, with the settings it wrote (what a revert loads back).
    const history = await call("GET", `${url()}/history`, undefined, reader);
    expect(history.statusCode, history.body).toBe(200);
    expect(history.json<FlexibleLeverageHistory>().entries).toEqual([
      {
        at: expect.any(String),
        actorName: expect.any(String),
        settings: expect.objectContaining({ managers: ["1000", "1001"], rules: [expect.objectContaining({ name: "Rich" })] }),
      },
    ]);
  });

  it("keeps long rules on MT4 in numbered parameters of 127 characters, and refuses what MT4 cannot keep", async () => {
    const rules = Array.from({ length: 6 }, (_, i) => ({
      name: `Ladder ${i} for the real groups`,
      groups: "real*",
      symbols: "*,!Crypto*",
      mode: "exposureLots",
      tiers: [
        { threshold: 1, leverage: 100 },
        { threshold: 10.5, leverage: 50 },
      ],
    }));
    const saved = await call("PUT", url(mt4, FL4), { rules });
    expect(saved.statusCode, saved.body).toBe(200);
    const plugin = (await (await t.app.platforms.connectorFor(org, mt4)).listPlugins()).find((p) => p.id === FL4)!;
    const chunks = plugin.parameters.filter((p) => p.name.startsWith("Rules."));
    expect(chunks.length).toBeGreaterThan(1);
    expect(chunks.every((p) => p.value.length <= 127)).toBe(true);
    expect((await call("GET", url(mt4, FL4))).json<FlexibleLeverageView>().settings.rules).toHaveLength(6);

    const tooMany = Array.from({ length: 60 }, (_, i) => ({ ...rules[0], name: `Ladder number ${i} for the real groups` }));
    const refused = await call("PUT", url(mt4, FL4), { rules: tooMany });
    expect(refused.statusCode, refused.body).toBe(422);
    expect(refused.json<{ message: string }>().message).toMatch(/an MT4 plugin keeps at most 3,937/);
  });

  it("needs Module.plugins: read to see and preview, write to save", async () => {
    expect((await call("GET", url(), undefined, reader)).statusCode).toBe(200);
    expect((await call("POST", `${url()}/preview`, { settings: { rules: [] } }, reader)).statusCode).toBe(200);
    expect((await call("PUT", url(), { rules: [] }, reader)).statusCode).toBe(403);
    expect((await call("GET", url(), undefined, noPlugins)).statusCode).toBe(403);
    expect((await call("POST", `${url()}/preview`, { settings: { rules: [] } }, noPlugins)).statusCode).toBe(403);
  });

  it("keeps organizations apart: another organization's platform is 404, and nothing changes", async () => {
    expect((await call("GET", url(), undefined, eve, eveOrg)).statusCode).toBe(404);
    expect((await call("PUT", url(), { rules: [] }, eve, eveOrg)).statusCode).toBe(404);
    expect((await call("POST", `${url()}/preview`, { settings: { rules: [] } }, eve, eveOrg)).statusCode).toBe(404);
    expect((await call("GET", url(), undefined, eve, org)).statusCode).toBe(404);
    expect((await call("GET", `${url()}/history`, undefined, eve, eveOrg)).statusCode).toBe(404);
    expect((await call("GET", `${url()}/history`, undefined, noPlugins)).statusCode).toBe(403);
    expect((await call("GET", url())).json<FlexibleLeverageView>().settings.rules).toHaveLength(1);
  });

  it("answers invalid rules with a 400 in the schema's words, and a plugin that is not Flexible Leverage with 404", async () => {
    const before = (await auditOf(mt5, FL5)).length;
    const ladder = {
      name: "Bad",
      groups: "*",
      mode: "equity",
      tiers: [
        { threshold: 50_000, leverage: 100 },
        { threshold: 50_000, leverage: 50 },
      ],
    };
    const bad = await call("PUT", url(), { rules: [ladder] });
    expect(bad.statusCode, bad.body).toBe(400);
    expect(bad.json<{ message: string }>().message).toContain("Tier 2's threshold (50,000) must be above tier 1's (50,000)");
    const twice = await call("PUT", url(), { rules: [richRule(), richRule()] });
    expect(twice.statusCode).toBe(400);
    expect(twice.json<{ message: string }>().message).toContain("are both named 'Rich'");
    const preview = await call("POST", `${url()}/preview`, { settings: { rules: [] }, whatIf: { serverTime: "Saturday" } });
    expect(preview.statusCode).toBe(400);
    expect(preview.json<{ message: string }>().message).toContain('such as "2026-12-05T10:00"');
    expect((await call("GET", url(mt5, FL4))).statusCode).toBe(404);
    expect((await call("GET", url(mt5, "CPlugin.MT5Plugin.Other"))).statusCode).toBe(400);
    expect(await auditOf(mt5, FL5)).toHaveLength(before);
    expect((await (await t.app.platforms.connectorFor(org, mt5)).getAccount(target.login)).leverage).toBe(rich);
  });
});
