/**
 * Balance operations through the API against a simulated platform: exactly once per
 * Idempotency-Key (concurrent retries, later replays), a different request under a used key,
 * platform rejections that leave nothing done and can be retried, and bad input.
 */
import { randomUUID } from "node:crypto";
import { and, eq, like } from "drizzle-orm";
import { afterAll, beforeAll, expect, it } from "vitest";
import { moneyToDecimal } from "../../core/trading/index.ts";
import { accountsMirrorOf } from "../../server/accounts/plugin.ts";
import { auditEvents, balanceOperations, tradingAccounts } from "../../server/db/schema.ts";
import { describeDb } from "../helpers/db.ts";
import { createTestApp, type TestApp } from "../helpers/testApp.ts";
import { apiHeaders, newPerson, tokenFactory, type TokenFactory } from "../helpers/tokens.ts";
import { signUp } from "./support/fixtures.ts";

describeDb("/api/accounts/…/balance-operations", () => {
  let t: TestApp;
  let tokens: TokenFactory;
  const cashier = newPerson("Cashier");
  let org: string;
  let platformId: string;
  let logins: string[];
  let nextLogin = 0;

  beforeAll(async () => {
    t = await createTestApp();
    tokens = await tokenFactory(t.ctx);
    org = await signUp(t, tokens, cashier);
    const res = await t.app.inject({
      method: "POST",
      url: "/api/tradePlatforms",
      headers: apiHeaders(await tokens.mint(cashier), org),
      payload: { type: "MT4", name: "Sim MT4", timeZone: "Europe/Nicosia", connection: { kind: "simulated", accounts: 60, tradeRate: 0, seed: 5 } },
    });
    expect(res.statusCode, res.body).toBe(201);
    platformId = res.json().id;
    await accountsMirrorOf(t.ctx)!.whenSynced(platformId, 30_000);
    logins = (await (await connector()).listAccounts({ limit: 60 })).items.map((a) => a.login);
  }, 60_000);
  afterAll(() => t?.close());

  const connector = () => t.app.platforms.connectorFor(org, platformId);
  const freshLogin = () => logins[nextLogin++]!;

  async function operate(login: string, key: string | undefined, body: unknown) {
    const res = await t.app.inject({
      method: "POST",
      url: `/api/accounts/${platformId}/${login}/balance-operations`,
      headers: { ...apiHeaders(await tokens.mint(cashier), org), ...(key === undefined ? {} : { "idempotency-key": key }) },
      payload: body as object,
    });
    return { status: res.statusCode, body: res.json(), replayed: res.headers["idempotent-replayed"] === "true" };
  }

  async function mirrorRow(login: string) {
    const [row] = await t.ctx.database.db
      .select()
      .from(tradingAccounts)
      .where(and(eq(tradingAccounts.platformId, platformId), eq(tradingAccounts.login, login)));
    return row!;
  }

  const balanceAudits = (login: string) =>
    t.ctx.database.db
      .select()
      .from(auditEvents)
      .where(and(like(auditEvents.action, "account.balance.%"), eq(auditEvents.targetId, `${platformId}/${login}`)));

  it("moves money once when one key is retried ten times at the same moment", async () => {
    const login = freshLogin();
    const before = await (await connector()).getAccount(login);
    const key = randomUUID();
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => operate(login, key, { type: "deposit", amount: "100.00", comment: "retry storm" })),
    );
    for (const a of answers) expect(a.status, JSON.stringify(a.body)).toBe(201);
    const bodies = new Set(answers.map((a) => JSON.stringify(a.body)));
    expect(bodies.size).toBe(1);
    expect(answers.filter((a) => !a.replayed)).toHaveLength(1);
    const answer = answers[0]!.body;
    expect(answer).toMatchObject({ type: "deposit", amount: "100.00", balance: moneyToDecimal(before.balance + 10_000), credit: moneyToDecimal(before.credit) });

    // The platform, the mirror and the audit log each saw it once.
    const after = await (await connector()).getAccount(login);
    expect(after.balance).toBe(before.balance + 10_000);
    const deals = await (await connector()).dealHistory({ login, from: Date.now() - 3_600_000, to: Date.now() + 60_000 });
    expect(deals.filter((d) => d.comment === "retry storm")).toHaveLength(1);
    expect((await mirrorRow(login)).balance).toBe(moneyToDecimal(before.balance + 10_000));
    const audits = await balanceAudits(login);
    expect(audits).toHaveLength(1);
    expect(audits[0]).toMatchObject({ action: "account.balance.deposit", actorSub: cashier.sub, organizationId: org });
    expect(audits[0]!.before).toEqual({ balance: moneyToDecimal(before.balance), credit: moneyToDecimal(before.credit) });

    // Later retries replay the first answer, and still move nothing.
    const later = await operate(login, key, { type: "deposit", amount: "100", comment: "retry storm" });
    expect(later).toMatchObject({ status: 201, replayed: true, body: answer });
    expect((await (await connector()).getAccount(login)).balance).toBe(before.balance + 10_000);
    // The stream's own account event lands too: the mirror still shows one deposit.
    await accountsMirrorOf(t.ctx)!.whenCaughtUp(platformId);
    expect((await mirrorRow(login)).balance).toBe(moneyToDecimal(before.balance + 10_000));
  });

  it("refuses the same key for a different operation (422), and moves nothing", async () => {
    const login = freshLogin();
    const key = randomUUID();
    const first = await operate(login, key, { type: "creditIn", amount: "50.00" });
    expect(first.status).toBe(201);
    const before = await (await connector()).getAccount(login);
    for (const body of [
      { type: "creditIn", amount: "50.01" },
      { type: "deposit", amount: "50.00" },
      { type: "creditIn", amount: "50.00", comment: "other" },
    ]) {
      const res = await operate(login, key, body);
      expect(res.status).toBe(422);
      expect(res.body.message).toBe("This Idempotency-Key was already used for a different operation");
    }
    const otherAccount = await operate(freshLogin(), key, { type: "creditIn", amount: "50.00" });
    expect(otherAccount.status).toBe(422);
    expect((await (await connector()).getAccount(login)).credit).toBe(before.credit);
  });

  it("answers a platform rejection with its reason, records nothing as done, replays the refusal for that key, and a new key may try again", async () => {
    const login = freshLogin();
    const server = t.app.platforms.simulatedServer(platformId)!;
    const before = await (await connector()).getAccount(login);
    const key = randomUUID();
    const body = { type: "deposit", amount: "250.00", comment: "after fault" };

    server.faults.rejectNext(1);
    const rejected = await operate(login, key, body);
    expect(rejected.status).toBe(422);
    expect(rejected.body.message).toBeTruthy();
    expect((await (await connector()).getAccount(login)).balance).toBe(before.balance);
    const [row] = await t.ctx.database.db.select().from(balanceOperations).where(eq(balanceOperations.idempotencyKey, key));
    expect(row!.status).toBe("rejected");
    expect(await balanceAudits(login)).toHaveLength(0);

    // The refusal is that key's answer, like any first result: a retry never turns it into money.
    const replayedRefusal = await operate(login, key, body);
    expect(replayedRefusal.status).toBe(422);
    expect(replayedRefusal.body.message).toBe(rejected.body.message);
    expect((await (await connector()).getAccount(login)).balance).toBe(before.balance);

    const newKey = randomUUID();
    const retried = await operate(login, newKey, body);
    expect(retried.status, JSON.stringify(retried.body)).toBe(201);
    expect(retried.replayed).toBe(false);
    const again = await operate(login, newKey, body);
    expect(again).toMatchObject({ status: 201, replayed: true, body: retried.body });
    expect((await (await connector()).getAccount(login)).balance).toBe(before.balance + 25_000);
    expect(await balanceAudits(login)).toHaveLength(1);
  });

  it("leaves a withdrawal beyond what is free to the platform, and surfaces its reason", async () => {
    const login = freshLogin();
    const account = await (await connector()).getAccount(login);
    const tooMuch = moneyToDecimal(account.balance + 100_000);
    const res = await operate(login, randomUUID(), { type: "withdrawal", amount: tooMuch });
    expect(res.status).toBe(422);
    expect(res.body.message).toMatch(/Cannot withdraw/);
    expect((await (await connector()).getAccount(login)).balance).toBe(account.balance);

    const ok = await operate(login, randomUUID(), { type: "withdrawal", amount: "1.05" });
    expect(ok.status).toBe(201);
    expect(ok.body.balance).toBe(moneyToDecimal(account.balance - 105));
    const creditOut = await operate(login, randomUUID(), { type: "creditOut", amount: moneyToDecimal(account.credit + 1) });
    expect(creditOut.status).toBe(422);
  });

  it("refuses bad input with a readable 400 before anything is recorded", async () => {
    const login = freshLogin();
    const cases: [string | undefined, unknown, RegExp][] = [
      [undefined, { type: "deposit", amount: "10" }, /Idempotency-Key/],
      ["short", { type: "deposit", amount: "10" }, /Idempotency-Key must be 8 to 200 characters/],
      ["x".repeat(201), { type: "deposit", amount: "10" }, /Idempotency-Key must be 8 to 200 characters/],
      [randomUUID(), { type: "gift", amount: "10" }, /type must be one of/],
      [randomUUID(), { type: "deposit", amount: "10.001" }, /at most 2 decimals/],
      [randomUUID(), { type: "deposit", amount: "0.00" }, /greater than zero/],
      [randomUUID(), { type: "deposit", amount: "-5" }, /positive amount/],
      [randomUUID(), { type: "deposit", amount: 10 }, /decimal string/],
      [randomUUID(), { type: "deposit", amount: "1e3" }, /positive amount/],
      [randomUUID(), { type: "deposit", amount: "10", comment: "x".repeat(40) }, /comment is at most 31 characters/],
    ];
    for (const [key, body, message] of cases) {
      const res = await operate(login, key, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.message, JSON.stringify(body)).toMatch(message);
    }
    const broken = await t.app.inject({
      method: "POST",
      url: `/api/accounts/${platformId}/${login}/balance-operations`,
      headers: { ...apiHeaders(await tokens.mint(cashier), org), "idempotency-key": randomUUID(), "content-type": "application/json" },
      payload: "{not json",
    });
    expect(broken.statusCode).toBe(400);
    expect(broken.json().message).toBe("The request body is not valid JSON.");
    const rows = await t.ctx.database.db.select().from(balanceOperations).where(eq(balanceOperations.login, login));
    expect(rows).toHaveLength(0);
    expect((await operate("99999999", randomUUID(), { type: "deposit", amount: "10" })).status).toBe(404);
  });
});
