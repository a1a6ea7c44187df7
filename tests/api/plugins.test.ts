/**
 * /api/tradePlatforms/{id}/plugins through the real server (docs/connectors.md, "Plugins"): a
 * simulated MT5 server's Flexible Leverage plugin listed, its parameters and enabled flag changed
 * on the server (read back through the connector and from the simulation itself) and audited with
 * before/after; `Module.plugins` read/write; another organization's platform is 404; bad input is a
 * readable 400 that changes nothing; Match-Trader says it has no plugins, and refuses a change
 * with 422 in its own words.
 */
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, expect, it } from "vitest";
import { moduleClaimType } from "../../core/access.ts";
import type { PluginList, PluginView } from "../../core/schemas/plugins.ts";
import { auditEvents } from "../../server/db/schema.ts";
import { describeDb } from "../helpers/db.ts";
import { createTestApp, type TestApp } from "../helpers/testApp.ts";
import { apiHeaders, newPerson, tokenFactory, type Person, type TokenFactory } from "../helpers/tokens.ts";
import { addMember, signUp } from "./support/fixtures.ts";

const FL = "CPlugin.MT5Plugin.FlexibleLeverage";

describeDb("plugins: a platform's server plugins", () => {
  let t: TestApp;
  let tokens: TokenFactory;
  const ada = newPerson("Ada Owner");
  const reader = newPerson("Rita Reader");
  const noPlugins = newPerson("Nico NoPlugins");
  const eve = newPerson("Eve Elsewhere");
  let org: string;
  let eveOrg: string;
  let mt5: string;
  let matchTrader: string;

  const call = async (method: "GET" | "PUT" | "POST", url: string, payload?: unknown, person: Person = ada, organization = org) =>
    t.app.inject({
      method,
      url,
      headers: apiHeaders(await tokens.mint(person), organization),
      ...(payload === undefined ? {} : { payload: payload as object }),
    });
  const simulated = async (type: "MT5" | "MatchTrader", name: string) => {
    const res = await call("POST", "/api/tradePlatforms", {
      type,
      name,
      timeZone: "UTC",
      connection: { kind: "simulated", accounts: 5, tradeRate: 0 },
    });
    expect(res.statusCode, res.body).toBe(201);
    return res.json<{ id: string }>().id;
  };
  const auditOf = (platformId: string) =>
    t.ctx.database.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.organizationId, org), eq(auditEvents.targetType, "plugin"), eq(auditEvents.targetId, `${platformId}/${FL}`)));

  beforeAll(async () => {
    t = await createTestApp();
    tokens = await tokenFactory(t.ctx);
    org = await signUp(t, tokens, ada);
    eveOrg = await signUp(t, tokens, eve);
    await addMember(t.ctx, org, reader, { [moduleClaimType("plugins", org)]: "read" });
    await addMember(t.ctx, org, noPlugins, { [moduleClaimType("users", org)]: "read" });
    mt5 = await simulated("MT5", "Sim MT5");
    matchTrader = await simulated("MatchTrader", "Sim Match-Trader");
  }, 60_000);
  afterAll(() => t?.close());

  it("lists the server's Flexible Leverage plugin; a change reaches the server and is audited with before and after", async () => {
    const listed = await call("GET", `/api/tradePlatforms/${mt5}/plugins`);
    expect(listed.statusCode, listed.body).toBe(200);
    const list = listed.json<PluginList>();
    expect(list).toMatchObject({ supported: true, message: null });
    expect(list.plugins.find((p) => p.id === FL)).toMatchObject({
      file: `${FL}.dll`,
      version: "1.0.1.12",
      enabled: true,
      configurable: true,
      state: "running",
      parameters: [
        { name: "Managers", value: "1000" },
        { name: "Rules", value: "[]" },
      ],
    });

    const parameters = [
      { name: "Managers", value: "1000,1001" },
      { name: "Rules", value: '[{"name":"Gold","active":true}]' },
    ];
    const changed = await call("PUT", `/api/tradePlatforms/${mt5}/plugins/${FL}`, { enabled: false, parameters });
    expect(changed.statusCode, changed.body).toBe(200);
    expect(changed.json<PluginView>()).toMatchObject({ id: FL, enabled: false, state: "disabled", parameters });
    // On the server: through the platform's connector, and in the simulation itself.
    const connector = await t.app.platforms.connectorFor(org, mt5);
    expect((await connector.listPlugins()).find((p) => p.id === FL)).toMatchObject({ enabled: false, parameters });
    expect(
      t.app.platforms
        .simulatedServer(mt5)
        ?.engine.plugins()
        .find((p) => p.id === FL),
    ).toMatchObject({ enabled: false, parameters });

    const [audit, ...more] = await auditOf(mt5);
    expect(more).toHaveLength(0);
    expect(audit).toMatchObject({
      action: "plugin.disabled",
      actorSub: ada.sub,
      before: {
        version: "1.0.1.12",
        enabled: true,
        parameters: [
          { name: "Managers", value: "1000" },
          { name: "Rules", value: "[]" },
        ],
      },
      after: { version: "1.0.1.12", enabled: false, parameters },
    });

    const again = await call("PUT", `/api/tradePlatforms/${mt5}/plugins/${FL}`, { enabled: true });
    expect(again.json<PluginView>()).toMatchObject({ enabled: true, parameters });
    expect((await auditOf(mt5)).map((a) => a.action).sort()).toEqual(["plugin.disabled", "plugin.enabled"]);
  });

  it("needs Module.plugins: read to list, write to change", async () => {
    expect((await call("GET", `/api/tradePlatforms/${mt5}/plugins`, undefined, reader)).statusCode).toBe(200);
    const refused = await call("PUT", `/api/tradePlatforms/${mt5}/plugins/${FL}`, { enabled: false }, reader);
    expect(refused.statusCode, refused.body).toBe(403);
    expect((await call("GET", `/api/tradePlatforms/${mt5}/plugins`, undefined, noPlugins)).statusCode).toBe(403);
    expect((await call("PUT", `/api/tradePlatforms/${mt5}/plugins/${FL}`, { enabled: false }, noPlugins)).statusCode).toBe(403);
    expect(
      t.app.platforms
        .simulatedServer(mt5)
        ?.engine.plugins()
        .find((p) => p.id === FL)?.enabled,
    ).toBe(true);
  });

  it("keeps organizations apart: another organization's platform is 404, and nothing changes", async () => {
    expect((await call("GET", `/api/tradePlatforms/${mt5}/plugins`, undefined, eve, eveOrg)).statusCode).toBe(404);
    expect((await call("PUT", `/api/tradePlatforms/${mt5}/plugins/${FL}`, { enabled: false }, eve, eveOrg)).statusCode).toBe(404);
    // Not a member of Ada's organization: the guard does not even say it exists.
    expect((await call("GET", `/api/tradePlatforms/${mt5}/plugins`, undefined, eve, org)).statusCode).toBe(404);
    expect(
      t.app.platforms
        .simulatedServer(mt5)
        ?.engine.plugins()
        .find((p) => p.id === FL)?.enabled,
    ).toBe(true);
  });

  it("answers bad input with a readable 400, an unknown plugin with 404, and records nothing for either", async () => {
    const before = (await auditOf(mt5)).length;
    const url = `/api/tradePlatforms/${mt5}/plugins/${FL}`;
    for (const [body, message] of [
      [{}, "Say what to change"],
      [{ enabled: "yes" }, "enabled must be true or false"],
      [
        {
          parameters: [
            { name: "Rules", value: "[]" },
            { name: "Rules", value: "{}" },
          ],
        },
        "Each parameter name appears once",
      ],
      [{ parameters: [{ name: "", value: "x" }] }, "A parameter needs a name"],
      [{ parameters: [{ name: "Rules", value: 5 }] }, "must be text"],
      [{ enabled: true, colour: "red" }, ""],
    ] as const) {
      const res = await call("PUT", url, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json<{ message: string }>().message.toLowerCase()).toContain(message.toLowerCase());
    }
    expect((await call("GET", "/api/tradePlatforms/not-a-uuid/plugins")).statusCode).toBe(400);
    const unknown = await call("PUT", `/api/tradePlatforms/${mt5}/plugins/CPlugin.MT5Plugin.NoSuchThing`, { enabled: false });
    expect(unknown.statusCode, unknown.body).toBe(404);
    expect(unknown.json<{ message: string }>().message).toContain("NoSuchThing");
    expect(await auditOf(mt5)).toHaveLength(before);
  });

  it("on Match-Trader, says the platform has no plugins and refuses a change with 422 in its words", async () => {
    const listed = await call("GET", `/api/tradePlatforms/${matchTrader}/plugins`);
    expect(listed.statusCode, listed.body).toBe(200);
    expect(listed.json<PluginList>()).toEqual({ supported: false, message: expect.stringMatching(/Match-Trader has no server plugins/), plugins: [] });
    const refused = await call("PUT", `/api/tradePlatforms/${matchTrader}/plugins/${FL}`, { enabled: false });
    expect(refused.statusCode, refused.body).toBe(422);
    expect(refused.json<{ message: string }>().message).toMatch(/Match-Trader has no server plugins/);
  });
});
