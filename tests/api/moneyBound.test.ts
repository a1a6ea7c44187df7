/**
 * The crash once reported (docs/decisions/0033-contain-platform-failures.md), end to end: a new person signs up, connects a simulated MT5
 * server with one account, and posts 91 deposits of 999,999,999,999.99 with fresh keys; then
 * fills the account to the bound and deposits once more. Before the fix the balance left the
 * exact-integer range, the simulated traders' timer threw and the process ended. Now every
 * over-limit deposit is refused with 422 in words a dealer understands, nothing stays pending,
 * the traders keep trading on the account at the bound, and the server keeps answering.
 */
// Databases: PGlite and PostgreSQL (amounts at the bound of the numeric columns).
import { randomUUID } from "node:crypto";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, expect, it } from "vitest";
import { MAX_ACCOUNT_MONEY, MAX_OPERATION_AMOUNT, moneyToDecimal } from "../../core/trading/index.ts";
import { isConnectorError } from "../../server/connectors/errors.ts";
import { balanceOperations } from "../../server/db/schema.ts";
import { accountsMirrorOf } from "../../server/modules/accounts/mirror/plugin.ts";
import { describeDb } from "../helpers/db.ts";
import { createTestApp, type TestApp } from "../helpers/testApp.ts";
import { apiHeaders, newPerson, tokenFactory, type TokenFactory } from "../helpers/tokens.ts";
import { signUp } from "./support/fixtures.ts";

describeDb("money past the bound (the reported crash)", () => {
  let t: TestApp;
  let tokens: TokenFactory;
  const escaped: unknown[] = [];
  const onEscape = (error: unknown) => escaped.push(error);
  beforeAll(async () => {
    process.on("uncaughtException", onEscape);
    t = await createTestApp();
    tokens = await tokenFactory(t.ctx);
  });
  afterAll(async () => {
    process.off("uncaughtException", onEscape);
    await t?.close();
  });

  it("refuses every over-limit deposit with 422, leaves nothing pending, and keeps the server and its traders running", async () => {
    const newcomer = newPerson("Newcomer");
    const org = await signUp(t, tokens, newcomer);
    const headers = async () => apiHeaders(await tokens.mint(newcomer), org);
    const created = await t.app.inject({
      method: "POST",
      url: "/api/tradePlatforms",
      headers: await headers(),
      payload: { type: "MT5", name: "One account", timeZone: "UTC", connection: { kind: "simulated", accounts: 1, tradeRate: 50, seed: 1 } },
    });
    expect(created.statusCode, created.body).toBe(201);
    const platformId = created.json().id as string;
    await accountsMirrorOf(t.ctx)!.whenSynced(platformId, 30_000);
    const connector = await t.app.platforms.connectorFor(org, platformId);
    const [account] = (await connector.listAccounts({ limit: 1 })).items;
    const login = account!.login;
    const deposit = async (amount: string) => {
      const res = await t.app.inject({
        method: "POST",
        url: `/api/accounts/${platformId}/${login}/balance-operations`,
        headers: { ...(await headers()), "idempotency-key": randomUUID() },
        payload: { type: "deposit", amount, comment: "top up" },
      });
      return { status: res.statusCode, message: res.json<{ message?: string }>().message ?? "" };
    };

    // The reproduction: 91 deposits of 999,999,999,999.99, each more than one operation may move.
    for (let i = 0; i < 91; i++) {
      const answer = await deposit("999999999999.99");
      expect(answer.status, answer.message).toBe(422);
      expect(answer.message).toMatch(/1,000,000,000(\.00)?/);
    }
    const deals = await connector.dealHistory({ login, from: account!.registration, to: Date.now() + 86_400_000 });
    expect(deals.filter((d) => d.action === "balance" && d.comment === "top up")).toEqual([]);

    // Now to the account bound, in the largest single operations the platform takes, then to within a cent of it.
    for (;;) {
      try {
        await connector.balanceOperation({ operationId: randomUUID(), login, type: "deposit", amount: MAX_OPERATION_AMOUNT, comment: "fill" });
      } catch (error) {
        if (isConnectorError(error, "rejected")) break;
        throw error;
      }
    }
    const near = await connector.getAccount(login);
    const room = MAX_ACCOUNT_MONEY - Math.max(near.balance, near.equity) - 1;
    if (room > 0) await connector.balanceOperation({ operationId: randomUUID(), login, type: "deposit", amount: room, comment: "fill" });

    // The deposit that crossed the line answered 500 and stayed pending; now it is refused as the platform refuses it.
    const crossing = await deposit(moneyToDecimal(MAX_OPERATION_AMOUNT));
    expect(crossing.status, crossing.message).toBe(422);
    expect(crossing.message).toMatch(/^The server refuses this amount: an account's (balance|equity) may not exceed 1,000,000,000,000\.00 [A-Z]{3}\.$/);

    // The simulated traders go on trading on that account (their timer used to throw here), and the server answers.
    const traders = t.app.platforms.simulatedServer(platformId)!.traders;
    const attempted = traders.attempted;
    await new Promise((r) => setTimeout(r, 1_500));
    expect(traders.attempted).toBeGreaterThan(attempted + 20);
    const after = await connector.getAccount(login);
    expect(Math.abs(after.balance)).toBeLessThanOrEqual(MAX_ACCOUNT_MONEY);
    const detail = await t.app.inject({ url: `/api/tradePlatforms/${platformId}`, headers: await headers() });
    expect(detail.json()).toMatchObject({ state: "connected", lastError: null });
    const list = await t.app.inject({ url: `/api/accounts?platformId=${platformId}`, headers: await headers() });
    expect(list.statusCode).toBe(200);

    // Every refused deposit has its final answer; none stays pending.
    const rows = await t.ctx.database.db.select().from(balanceOperations).where(eq(balanceOperations.organizationId, org));
    expect(rows.filter((r) => r.status === "pending")).toEqual([]);
    expect(escaped).toEqual([]);
  });
});
