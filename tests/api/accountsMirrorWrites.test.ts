/**
 * What the account detail writes to the mirror: it reads the account live from the platform and
 * writes the mirror row only when something differs (no new row version otherwise).
 */
// Databases: PGlite and PostgreSQL (the mirror's upserts and generations).
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, expect, it } from "vitest";
import { accountsMirrorOf } from "../../server/modules/accounts/mirror/plugin.ts";
import { rowsOf } from "../../server/db/rows.ts";
import { describeDb } from "../helpers/db.ts";
import { createTestApp, type TestApp } from "../helpers/testApp.ts";
import { apiHeaders, newPerson, tokenFactory, type TokenFactory } from "../helpers/tokens.ts";
import { signUp } from "./support/fixtures.ts";

describeDb("account detail and the mirror", () => {
  let t: TestApp;
  let tokens: TokenFactory;
  const dealer = newPerson("Dealer");
  let org: string;
  let platformId: string;
  /** An account with no open position: its figures stand still while prices move. */
  let login: string;

  const get = async (url: string) => t.app.inject({ url, headers: apiHeaders(await tokens.mint(dealer), org) });

  /** The row's version: xmin changes with every write, even of equal values. */
  async function version() {
    const result = await t.ctx.database.db.execute(
      sql`select xmin::text as version, leverage from trading_accounts where platform_id = ${platformId}::uuid and login = ${login}`,
    );
    return rowsOf<{ version: string; leverage: number }>(result)[0]!;
  }

  beforeAll(async () => {
    t = await createTestApp();
    tokens = await tokenFactory(t.ctx);
    org = await signUp(t, tokens, dealer);
    const created = await t.app.inject({
      method: "POST",
      url: "/api/tradePlatforms",
      headers: apiHeaders(await tokens.mint(dealer), org),
      payload: { type: "MT5", name: "Sim MT5", timeZone: "UTC", connection: { kind: "simulated", accounts: 50, tradeRate: 0, seed: 4 } },
    });
    expect(created.statusCode, created.body).toBe(201);
    platformId = created.json().id;
    await accountsMirrorOf(t.ctx)!.whenSynced(platformId, 30_000);
    const list = (await get("/api/accounts?limit=50")).json().items as { login: string; margin: string }[];
    login = list.find((a) => a.margin === "0.00")!.login;
  }, 60_000);
  afterAll(() => t?.close());

  it("writes nothing when the account has not changed", async () => {
    const before = await version();
    for (let i = 0; i < 3; i++) {
      const res = await get(`/api/accounts/${platformId}/${login}`);
      expect(res.statusCode).toBe(200);
      expect(res.json().live).toBe(true);
    }
    expect(await version()).toEqual(before);
  });

  it("writes the row when the platform's account differs from it", async () => {
    await t.ctx.database.db.execute(sql`update trading_accounts set leverage = 1 where platform_id = ${platformId}::uuid and login = ${login}`);
    const stale = await version();
    const res = await get(`/api/accounts/${platformId}/${login}`);
    expect(res.statusCode).toBe(200);
    const platformLeverage = (await (await t.app.platforms.connectorFor(org, platformId)).getAccount(login)).leverage;
    expect(res.json().leverage).toBe(platformLeverage);
    const after = await version();
    expect(after.version).not.toBe(stale.version);
    expect(after.leverage).toBe(platformLeverage);
  });
});
