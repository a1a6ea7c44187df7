/**
 * Balance operations through the API against a simulated platform: exactly once per
 * Idempotency-Key (concurrent retries, later replays), a different request under a used key,
 * platform rejections that leave nothing done and can be retried, bad input, and failures after
 * the platform answered (injected with database triggers) that must never lose the outcome.
 */
// Databases: PGlite and PostgreSQL (money moved exactly once, with failures injected by database triggers).
import { randomUUID } from "node:crypto";
import { and, eq, like, sql } from "drizzle-orm";
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { moneyToDecimal, type BalanceOperationRequest } from "../../core/trading/index.ts";
import { accountsMirrorOf } from "../../server/modules/accounts/mirror/plugin.ts";
import { connectorErrors } from "../../server/connectors/errors.ts";
import { NOT_RECORDED } from "../../server/modules/accounts/balanceOperationOutcomes.ts";
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

  /** Runs `work` while every write to `table` matching `when` fails, as a broken disk or a lost connection would make it. */
  async function whileFailing<T>(table: "audit_events" | "trading_accounts", when: string, work: () => Promise<T>): Promise<T> {
    const db = t.ctx.database.db;
    await db.execute(
      sql.raw(`create or replace function toolbox_test_fail() returns trigger language plpgsql as $$ begin raise exception 'injected failure'; end $$`),
    );
    await db.execute(
      sql.raw(`create trigger toolbox_test_fail before insert or update on ${table} for each row when (${when}) execute function toolbox_test_fail()`),
    );
    try {
      return await work();
    } finally {
      await db.execute(sql.raw(`drop trigger toolbox_test_fail on ${table}`));
    }
  }

  async function listed(login: string) {
    const res = await t.app.inject({
      method: "GET",
      url: `/api/accounts/${platformId}/${login}/balance-operations`,
      headers: apiHeaders(await tokens.mint(cashier), org),
    });
    expect(res.statusCode, res.body).toBe(200);
    return res.json();
  }

  const balanceAudits = (login: string) =>
    t.ctx.database.db
      .select()
      .from(auditEvents)
      .where(and(like(auditEvents.action, "account.balance.%"), eq(auditEvents.targetId, `${platformId}/${login}`)));

  /**
   * The platform as the balance operations see it, instrumented: every operation id sent to it is
   * noted; with `loseAnswers`, it applies each operation but the answer never arrives (a timeout:
   * outcome unknown); with `holdUntil`, every request is held when it fetches the connector until
   * that many have. performBalanceOperation fetches it right between looking the key's row up and
   * writing it (the insert of a new key, the claim of an abandoned one), so the held requests all
   * write at once, and only the database's guards keep the money from moving twice — on
   * PostgreSQL's pool and on PGlite alike. (Left alone, PGlite's one serialised connection lets
   * the first request write before the others look, and the races would pass without the guards.)
   */
  function instrumentPlatform(options: { holdUntil?: number; loseAnswers?: boolean } = {}) {
    const runtime = t.app.platforms;
    const connectorFor = runtime.connectorFor.bind(runtime);
    const operationIds: string[] = [];
    let arrived = 0;
    let release!: () => void;
    const together = new Promise<void>((resolve) => (release = resolve));
    const spy = vi.spyOn(runtime, "connectorFor").mockImplementation(async (organizationId, id) => {
      const real = await connectorFor(organizationId, id);
      if (options.holdUntil) {
        if (++arrived === options.holdUntil) release();
        await Promise.race([together, new Promise((resolve) => setTimeout(resolve, 10_000))]);
      }
      return new Proxy(real, {
        get(target, key) {
          if (key === "balanceOperation") {
            return async (request: BalanceOperationRequest) => {
              operationIds.push(request.operationId);
              const result = await target.balanceOperation(request);
              if (options.loseAnswers) throw connectorErrors.timeout(10_000);
              return result;
            };
          }
          const value = Reflect.get(target, key, target);
          return typeof value === "function" ? value.bind(target) : value;
        },
      });
    });
    return { arrived: () => arrived, operationIds, restore: () => spy.mockRestore() };
  }

  it("moves money once when one key is retried ten times at the same moment", async () => {
    const login = freshLogin();
    const before = await (await connector()).getAccount(login);
    const key = randomUUID();
    const held = instrumentPlatform({ holdUntil: 10 });
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => operate(login, key, { type: "deposit", amount: "100.00", comment: "retry storm" })),
    ).finally(held.restore);
    // All ten found no row for the key and went on to insert one; the platform was asked once.
    expect(held.arrived()).toBe(10);
    expect(held.operationIds).toHaveLength(1);
    for (const a of answers) expect(a.status, JSON.stringify(a.body)).toBe(201);
    const bodies = new Set(answers.map((a) => JSON.stringify(a.body)));
    expect(bodies.size).toBe(1);
    expect(answers.filter((a) => !a.replayed)).toHaveLength(1);
    const answer = answers[0]!.body;
    expect(answer).toMatchObject({
      type: "deposit",
      amount: "100.00",
      balance: moneyToDecimal(before.balance + 10_000),
      credit: moneyToDecimal(before.credit),
    });

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

  it("asks the platform once more when two retries take over an unknown outcome at the same moment", async () => {
    const login = freshLogin();
    const before = await (await connector()).getAccount(login);
    const key = randomUUID();
    const body = { type: "deposit", amount: "7.00", comment: "takeover" };

    // Applied by the platform, but its answer is lost: the outcome is unknown, the key pending.
    const lost = instrumentPlatform({ loseAnswers: true });
    const first = await operate(login, key, body).finally(lost.restore);
    expect(first.status, JSON.stringify(first.body)).toBe(503);
    expect(first.body.message).toMatch(/Retry with the same Idempotency-Key/);
    expect(lost.operationIds).toHaveLength(1);
    expect((await (await connector()).getAccount(login)).balance).toBe(before.balance + 700);

    // Two retries find it abandoned and both try to take it over.
    const held = instrumentPlatform({ holdUntil: 2 });
    const answers = await Promise.all([operate(login, key, body), operate(login, key, body)]).finally(held.restore);
    expect(held.arrived()).toBe(2);
    for (const a of answers) expect(a.status, JSON.stringify(a.body)).toBe(201);
    expect(answers[0].body).toEqual(answers[1].body);
    expect(answers.filter((a) => !a.replayed)).toHaveLength(1);
    // One of them asked the platform again, with the first attempt's operation id: it answers a repeat with its first result.
    expect(held.operationIds).toEqual(lost.operationIds);
    expect(answers[0].body.balance).toBe(moneyToDecimal(before.balance + 700));
    expect((await (await connector()).getAccount(login)).balance).toBe(before.balance + 700);
    expect(await balanceAudits(login)).toHaveLength(1);
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
      [randomUUID(), { type: "gift", amount: "10" }, /type must be one of/i],
      [randomUUID(), { type: "deposit", amount: "10.001" }, /at most 2 decimals/],
      [randomUUID(), { type: "deposit", amount: "0.00" }, /greater than zero/],
      [randomUUID(), { type: "deposit", amount: "-5" }, /positive amount/],
      [randomUUID(), { type: "deposit", amount: 10 }, /decimal string/],
      [randomUUID(), { type: "deposit", amount: "1e3" }, /positive amount/],
      [randomUUID(), { type: "deposit", amount: "10", comment: "x".repeat(40) }, /comment is at most 31 characters/i],
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
    // The bound itself is allowed: the platform is asked (and answers).
    const largest = await operate(login, randomUUID(), { type: "creditIn", amount: "1000000000.00" });
    expect(largest.status, JSON.stringify(largest.body)).toBe(201);
    expect((await operate("99999999", randomUUID(), { type: "deposit", amount: "10" })).status).toBe(404);
  });

  it("refuses an amount past the bound of one operation with 422 in a dealer's words, before anything is recorded or any platform asked", async () => {
    const login = freshLogin();
    const asked = vi.spyOn(t.app.platforms, "connectorFor");
    // The reproduction amount, and the smallest amount past the bound (core/trading/money.ts).
    for (const [amount, type] of [
      ["999999999999.99", "deposit"],
      ["1000000000.01", "creditIn"],
    ] as const) {
      const key = randomUUID();
      const res = await operate(login, key, { type, amount });
      expect(res.status, amount).toBe(422);
      expect(res.body.message).toBe("amount is too large: at most 1,000,000,000.00 in one operation; split a larger movement into several");
      // Nothing is held under the key: the same key may carry a corrected amount.
      const corrected = await operate(login, key, { type, amount: "10.00" });
      expect(corrected.status, JSON.stringify(corrected.body)).toBe(201);
    }
    expect(asked).toHaveBeenCalledTimes(2); // only for the corrected operations
    asked.mockRestore();
    const rows = await t.ctx.database.db.select().from(balanceOperations).where(eq(balanceOperations.login, login));
    expect(rows.map((r) => r.status)).toEqual(["done", "done"]);
  });

  it("says a 15-digit amount is too large (400), not that it has too many decimals", async () => {
    const res = await operate(freshLogin(), randomUUID(), { type: "deposit", amount: "999999999999999" });
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/too large: at most 1,000,000,000\.00/);
    expect(res.body.message).not.toMatch(/decimals/);
  });

  it("when the audit record cannot be written after the platform applied it: 202 unreconciled with the platform's figures, stored, replayed, listed", async () => {
    const login = freshLogin();
    const before = await (await connector()).getAccount(login);
    const key = randomUUID();
    const body = { type: "deposit", amount: "75.00", comment: "audit down" };
    const first = await whileFailing("audit_events", `new.target_id = '${platformId}/${login}'`, () => operate(login, key, body));
    // The money moved: the answer says so plainly, with a 2xx, and says a person must check it.
    expect(first.status, JSON.stringify(first.body)).toBe(202);
    expect(first.body).toEqual({
      status: "unreconciled",
      operationId: expect.any(String),
      type: "deposit",
      amount: "75.00",
      reason: NOT_RECORDED,
      balance: moneyToDecimal(before.balance + 7_500),
      credit: moneyToDecimal(before.credit),
      at: expect.any(String),
    });
    expect((await (await connector()).getAccount(login)).balance).toBe(before.balance + 7_500);
    const [row] = await t.ctx.database.db.select().from(balanceOperations).where(eq(balanceOperations.idempotencyKey, key));
    expect(row).toMatchObject({ status: "unreconciled", reason: NOT_RECORDED });
    expect(await balanceAudits(login)).toHaveLength(0);

    // A retry replays that outcome and moves nothing.
    const again = await operate(login, key, body);
    expect(again).toEqual({ status: 202, replayed: true, body: first.body });
    expect((await (await connector()).getAccount(login)).balance).toBe(before.balance + 7_500);

    // The account panel's list marks it.
    const [latest] = await listed(login);
    expect(latest).toMatchObject({
      operationId: first.body.operationId,
      status: "unreconciled",
      needsReconciling: true,
      reason: NOT_RECORDED,
      balance: first.body.balance,
    });
  });

  it("when only the mirror cannot be updated: done (201) with its audit record; the mirror catches up from the platform", async () => {
    const login = freshLogin();
    const before = await (await connector()).getAccount(login);
    const key = randomUUID();
    const res = await whileFailing("trading_accounts", `new.platform_id = '${platformId}' and new.login = '${login}'`, () =>
      operate(login, key, { type: "creditIn", amount: "12.34" }),
    );
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toMatchObject({ status: "done", credit: moneyToDecimal(before.credit + 1_234) });
    const [row] = await t.ctx.database.db.select().from(balanceOperations).where(eq(balanceOperations.idempotencyKey, key));
    expect(row!.status).toBe("done");
    expect(await balanceAudits(login)).toHaveLength(1);
    expect((await listed(login))[0]).toMatchObject({ status: "done", needsReconciling: false });
    await accountsMirrorOf(t.ctx)!.refresh(platformId, [login]);
    expect((await mirrorRow(login)).credit).toBe(moneyToDecimal(before.credit + 1_234));
  });

  it("lists an account's balance operations only for the organization's own accounts", async () => {
    const res = await t.app.inject({
      method: "GET",
      url: `/api/accounts/${platformId}/99999999/balance-operations`,
      headers: apiHeaders(await tokens.mint(cashier), org),
    });
    expect(res.statusCode).toBe(404);
    const outsider = newPerson("Outsider");
    const otherOrg = await signUp(t, tokens, outsider);
    const foreign = await t.app.inject({
      method: "GET",
      url: `/api/accounts/${platformId}/${logins[0]}/balance-operations`,
      headers: apiHeaders(await tokens.mint(outsider), otherOrg),
    });
    expect(foreign.statusCode).toBe(404);
  });
});
