/**
 * The exactly-once protocol of balance operations when the platform call's outcome is unknown
 * (timeout, a worker that stops between the platform and our commit), refused, or unreadable, and
 * the lease that keeps two workers apart, on a simulated platform whose connector is wrapped to
 * misbehave on cue. (Failures of the recording itself, injected with database triggers, are in
 * tests/api/accounts.balance.test.ts, on both databases.)
 */
import { randomUUID } from "node:crypto";
import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type BalanceOperationRequest } from "../../../core/trading/index.ts";
import { columnsOf } from "../../../server/modules/accounts/mirror/rows.ts";
import { upsertAccounts } from "../../../server/modules/accounts/mirror/writeRepository.ts";
import type { TradePlatformConnector } from "../../../server/connectors/connector.ts";
import { connectorErrors } from "../../../server/connectors/errors.ts";
import { createSimulatedConnector } from "../../../server/connectors/simulated/connector.ts";
import { SimulatedServer } from "../../../server/connectors/simulated/server.ts";
import { openDatabase, type Database } from "../../../server/db/client.ts";
import { auditEvents, balanceOperations, organizations, tradePlatforms } from "../../../server/db/schema.ts";
import { deliberateError } from "../../../server/http/errors.ts";
import * as store from "../../../server/modules/accounts/balanceOperationRepository.ts";
import { ANSWER_UNREADABLE, NO_ANSWER_YET, recentBalanceOperations } from "../../../server/modules/accounts/balanceOperationOutcomes.ts";
import { LEASE_MARGIN_MS, performBalanceOperation, type BalanceOperationCall } from "../../../server/modules/accounts/balanceOperations.ts";

let database: Database;
let server: SimulatedServer;
let real: TradePlatformConnector;
let organizationId: string;
const platformId = randomUUID();
/** What the wrapped connector does after (or instead of) the real call. */
let behaviour: "pass" | "timeoutAfterApplying" | "unreadableAfterApplying" | "stallAfterApplying" | "timeoutBeforeApplying" = "pass";
const operationIds: string[] = [];
function gate() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}
/** While behaviour is "stallAfterApplying": the worker waits here after the platform applied it, as a stopped process would. */
let stall = gate();

const connector = new Proxy({} as TradePlatformConnector, {
  get(_target, key) {
    if (key === "balanceOperation")
      return async (request: BalanceOperationRequest) => {
        operationIds.push(request.operationId);
        if (behaviour === "timeoutBeforeApplying") throw connectorErrors.timeout(10_000);
        const myStall = stall;
        const result = await real.balanceOperation(request);
        if (behaviour === "timeoutAfterApplying") throw connectorErrors.timeout(10_000);
        if (behaviour === "unreadableAfterApplying") throw new RangeError("balance is not a whole number of minor units: 1e+100");
        if (behaviour === "stallAfterApplying") await myStall.promise;
        return result;
      };
    const value = (real as unknown as Record<PropertyKey, unknown>)[key];
    return typeof value === "function" ? value.bind(real) : value;
  },
});

beforeAll(async () => {
  database = await openDatabase({ dataDir: "memory://" });
  const [org] = await database.db.insert(organizations).values({ name: "Exactly Once Ltd" }).returning();
  organizationId = org!.id;
  await database.db.insert(tradePlatforms).values({ id: platformId, organizationId, type: "MT5", name: "Sim" });
  server = new SimulatedServer({ platform: "MT5", accounts: 20, tradeRate: 0, seed: 9 });
  server.start();
  real = createSimulatedConnector(server);
  await real.connect();
  const accounts = (await real.listAccounts({ limit: 100 })).items;
  await upsertAccounts(database.db, { id: platformId, organizationId }, accounts.map(columnsOf));
});
afterAll(async () => {
  await real?.disconnect();
  server?.stop();
  await database?.close();
});

const deps = () => ({ db: database.db, connectorFor: async () => connector, waitMs: 200 });
let loginIndex = 0;
async function newCall(body: BalanceOperationCall["body"] = { type: "deposit", amount: "10.00", comment: "" }): Promise<BalanceOperationCall> {
  const login = (await real.listAccounts({ limit: 20 })).items[loginIndex++]!.login;
  return {
    organizationId,
    platformId,
    login,
    idempotencyKey: randomUUID(),
    body,
    actor: { organizationId, sub: "cashier", name: "Cashier", sourceIp: "127.0.0.1" },
  };
}
const expireLease = (key: string) =>
  database.db
    .update(balanceOperations)
    .set({ leaseUntil: sql`now() - interval '1 second'` })
    .where(eq(balanceOperations.idempotencyKey, key));
/** `quick` with the test's misbehaviour around its balance operations. */
const stalling = (quick: TradePlatformConnector) =>
  new Proxy(quick, {
    get(target, key) {
      if (key === "balanceOperation")
        return async (request: BalanceOperationRequest) => {
          const result = await target.balanceOperation(request);
          if (behaviour === "stallAfterApplying") await stall.promise;
          return result;
        };
      const value = (target as unknown as Record<PropertyKey, unknown>)[key];
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
const balanceOf = async (login: string) => (await real.getAccount(login)).balance;
const rowOf = async (key: string) => (await database.db.select().from(balanceOperations).where(eq(balanceOperations.idempotencyKey, key)))[0]!;
const auditsOf = async (login: string) =>
  database.db
    .select()
    .from(auditEvents)
    .where(eq(auditEvents.targetId, `${platformId}/${login}`));

async function expectHttpError(promise: Promise<unknown>, status: number, message?: RegExp) {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  // The status the API answers with, through the one map of server/http/errors.ts.
  const answer = deliberateError(error);
  expect(answer, String(error)).toBeDefined();
  expect(answer?.statusCode).toBe(status);
  if (message) expect(answer?.message).toMatch(message);
}

describe("balance operations when the outcome is unknown", () => {
  it("a timeout after the platform applied it: 503, and the retry gets the first result with the same operation id", async () => {
    const call = await newCall();
    const before = await balanceOf(call.login);
    operationIds.length = 0;
    behaviour = "timeoutAfterApplying";
    await expectHttpError(performBalanceOperation(deps(), call), 503, /Retry with the same Idempotency-Key/);
    expect((await rowOf(call.idempotencyKey)).status).toBe("pending");
    expect(await balanceOf(call.login)).toBe(before + 1000);

    behaviour = "pass";
    const retried = await performBalanceOperation(deps(), call);
    expect(retried.replayed).toBe(false);
    expect(operationIds).toHaveLength(2);
    expect(operationIds[0]).toBe(operationIds[1]);
    expect(await balanceOf(call.login)).toBe(before + 1000);
    expect(retried.answer.balance).toBe(((before + 1000) / 100).toFixed(2));
    expect((await rowOf(call.idempotencyKey)).status).toBe("done");
    expect(await auditsOf(call.login)).toHaveLength(1);
  });

  it("a timeout before it reached the platform: the retry applies it once", async () => {
    const call = await newCall();
    const before = await balanceOf(call.login);
    behaviour = "timeoutBeforeApplying";
    await expectHttpError(performBalanceOperation(deps(), call), 503);
    behaviour = "pass";
    await performBalanceOperation(deps(), call);
    await performBalanceOperation(deps(), call);
    expect(await balanceOf(call.login)).toBe(before + 1000);
  });

  it("a worker that stops after the platform applied it: 409 while its lease holds, then a retry takes over, and the stopped worker's late update changes nothing", async () => {
    const call = await newCall();
    const before = await balanceOf(call.login);
    operationIds.length = 0;
    const firstStall = (stall = gate());
    behaviour = "stallAfterApplying";
    const stopped = performBalanceOperation(deps(), call);
    await expect.poll(() => balanceOf(call.login)).toBe(before + 1000);
    const taken = await rowOf(call.idempotencyKey);

    behaviour = "pass";
    await expectHttpError(performBalanceOperation(deps(), call), 409, /still in progress/);
    expect(operationIds).toHaveLength(1);

    // Its lease runs out: the next retry takes the operation over with a new token and the same
    // operation id, and is itself still busy when the first worker wakes up.
    await expireLease(call.idempotencyKey);
    const secondStall = (stall = gate());
    behaviour = "stallAfterApplying";
    const takeover = performBalanceOperation(deps(), call);
    await expect.poll(() => operationIds.length).toBe(2);
    expect(operationIds[1]).toBe(operationIds[0]);
    const retaken = await rowOf(call.idempotencyKey);
    expect(retaken.leaseToken).not.toBe(taken.leaseToken);

    // The first worker wakes with the platform's answer: its lease is gone, so it records nothing
    // (the row stays the second worker's, still pending) and says the operation is in progress.
    firstStall.resolve();
    await expectHttpError(stopped, 409, /still in progress/);
    expect(await rowOf(call.idempotencyKey)).toEqual(retaken);
    expect(await auditsOf(call.login)).toHaveLength(0);

    secondStall.resolve();
    const outcome = await takeover;
    behaviour = "pass";
    expect(outcome.replayed).toBe(false);
    expect(outcome.answer).toMatchObject({ status: "done", balance: ((before + 1000) / 100).toFixed(2) });
    expect(await rowOf(call.idempotencyKey)).toMatchObject({ status: "done", leaseToken: retaken.leaseToken });
    expect(await balanceOf(call.login)).toBe(before + 1000);
    expect(await auditsOf(call.login)).toHaveLength(1);
    // And the first worker's request, retried, gets the outcome.
    expect(await performBalanceOperation(deps(), call)).toEqual({ answer: outcome.answer, replayed: true });
  });

  it("an update with a stale lease changes nothing; only the worker holding the lease settles the operation", async () => {
    const call = await newCall();
    const first = (await store.insertPending(
      database.db,
      {
        organizationId,
        platformId,
        login: call.login,
        idempotencyKey: call.idempotencyKey,
        requestHash: "h",
        type: "deposit",
        amount: "1.00",
        comment: "",
        actorSub: "cashier",
      },
      60_000,
    ))!;
    // Not taken over while the lease holds.
    expect(await store.takeOver(database.db, first, 60_000)).toBeUndefined();
    await expireLease(call.idempotencyKey);
    const second = (await store.takeOver(database.db, first, 60_000))!;
    expect(second.leaseToken).not.toBe(first.leaseToken);
    // The same stale row cannot be taken twice either.
    expect(await store.takeOver(database.db, first, 60_000)).toBeUndefined();

    const untouched = await rowOf(call.idempotencyKey);
    expect(await store.settle(database.db, first, { status: "done", result: { stale: true } })).toBe(false);
    expect(await store.settle(database.db, first, { status: "rejected", result: null })).toBe(false);
    expect(await store.settle(database.db, first, { status: "unreconciled", result: null, reason: "stale" })).toBe(false);
    expect(await store.releaseLease(database.db, first)).toBe(false);
    expect(await rowOf(call.idempotencyKey)).toEqual(untouched);

    expect(await store.settle(database.db, second, { status: "done", result: { fresh: true } })).toBe(true);
    expect(await rowOf(call.idempotencyKey)).toMatchObject({ status: "done", result: { fresh: true } });
    // Settled is settled: not even the lease holder changes it again.
    expect(await store.settle(database.db, second, { status: "rejected", result: null })).toBe(false);
  });

  it("holds the lease for the connector's request timeout plus a margin", async () => {
    const call = await newCall();
    const quick = createSimulatedConnector(server, { requestTimeoutMs: 2_000 });
    await quick.connect();
    try {
      stall = gate();
      behaviour = "stallAfterApplying";
      const running = performBalanceOperation({ ...deps(), connectorFor: async () => stalling(quick) }, call);
      await expect
        .poll(async () => (await database.db.select().from(balanceOperations).where(eq(balanceOperations.idempotencyKey, call.idempotencyKey))).length)
        .toBe(1);
      const [lease] = await database.db
        .select({ ms: sql<string>`extract(epoch from ${balanceOperations.leaseUntil} - ${balanceOperations.createdAt}) * 1000` })
        .from(balanceOperations)
        .where(eq(balanceOperations.idempotencyKey, call.idempotencyKey));
      expect(Number(lease!.ms)).toBe(2_000 + LEASE_MARGIN_MS);
      stall.resolve();
      expect((await running).answer.status).toBe("done");
    } finally {
      behaviour = "pass";
      await quick.disconnect();
    }
  });

  it("after a rejection the key's answer stays the refusal: the platform is not asked again", async () => {
    const call = await newCall();
    const before = await balanceOf(call.login);
    operationIds.length = 0;
    behaviour = "pass";
    server.faults.rejectNext(1);
    await expectHttpError(performBalanceOperation(deps(), call), 422);
    const rejected = await rowOf(call.idempotencyKey);
    expect(rejected.status).toBe("rejected");
    await expectHttpError(performBalanceOperation(deps(), call), 422);
    expect(await rowOf(call.idempotencyKey)).toEqual(rejected);
    expect(operationIds).toHaveLength(1);
    expect(await balanceOf(call.login)).toBe(before);
  });

  it("keys are per organization: another organization's identical key is its own operation", async () => {
    const call = await newCall();
    const [other] = await database.db.insert(organizations).values({ name: "Other" }).returning();
    const before = await balanceOf(call.login);
    await performBalanceOperation(deps(), call);
    // Same key, other organization: not a replay of the first (the platform check is the runtime's; here it lets it through).
    await expectHttpError(
      performBalanceOperation(deps(), { ...call, organizationId: other!.id, actor: { ...call.actor, organizationId: other!.id } }),
      404,
      /No such account/,
    );
    expect(await balanceOf(call.login)).toBe(before + 1000);
  });

  it("an answer that cannot be read after the platform applied it: recorded as unreconciled (202-shaped), replayed, never asked again", async () => {
    const call = await newCall();
    const before = await balanceOf(call.login);
    operationIds.length = 0;
    behaviour = "unreadableAfterApplying";
    const first = await performBalanceOperation(deps(), call);
    behaviour = "pass";
    expect(first).toEqual({
      replayed: false,
      answer: {
        status: "unreconciled",
        operationId: operationIds[0],
        type: "deposit",
        amount: "10.00",
        reason: ANSWER_UNREADABLE,
        balance: null,
        credit: null,
        at: null,
      },
    });
    expect(await rowOf(call.idempotencyKey)).toMatchObject({ status: "unreconciled", reason: ANSWER_UNREADABLE });
    expect(await balanceOf(call.login)).toBe(before + 1000);

    const again = await performBalanceOperation(deps(), call);
    expect(again).toEqual({ answer: first.answer, replayed: true });
    expect(operationIds).toHaveLength(1);
    expect(await balanceOf(call.login)).toBe(before + 1000);
    // The audit log says so, and the account's list marks it for a person to check.
    const audits = await auditsOf(call.login);
    expect(audits.map((a) => a.action)).toEqual(["account.balance.unreconciled"]);
    expect(audits[0]!.after).toMatchObject({ reason: ANSWER_UNREADABLE, amount: "10.00", idempotencyKey: call.idempotencyKey });
    const [listed] = await recentBalanceOperations(database.db, organizationId, platformId, call.login);
    expect(listed).toMatchObject({ operationId: operationIds[0], status: "unreconciled", needsReconciling: true, reason: ANSWER_UNREADABLE });
  });

  it("lists a pending operation nobody is working on as needing reconciling, a running or settled one not", async () => {
    const call = await newCall();
    behaviour = "timeoutBeforeApplying";
    await expectHttpError(performBalanceOperation(deps(), call), 503);
    behaviour = "pass";
    const done = await performBalanceOperation(deps(), { ...call, idempotencyKey: randomUUID() });
    const listed = await recentBalanceOperations(database.db, organizationId, platformId, call.login);
    expect(listed.map((o) => [o.status, o.needsReconciling, o.reason])).toEqual([
      ["done", false, null],
      ["pending", true, NO_ANSWER_YET],
    ]);
    expect(listed[0]).toMatchObject({ operationId: done.answer.operationId, balance: done.answer.balance });
    // Once retried with its key, it is done and no longer flagged.
    await performBalanceOperation(deps(), call);
    expect((await recentBalanceOperations(database.db, organizationId, platformId, call.login)).map((o) => o.needsReconciling)).toEqual([false, false]);
  });
});
