/**
 * The exactly-once protocol of balance operations when the platform call's outcome is unknown
 * (timeout, crash between the platform and our commit) or refused, on a simulated platform whose
 * connector is wrapped to misbehave on cue.
 */
import { randomUUID } from "node:crypto";
import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type BalanceOperationRequest } from "../../../core/trading/index.ts";
import { columnsOf } from "../../../server/accounts/rows.ts";
import { upsertAccounts } from "../../../server/accounts/store.ts";
import type { TradePlatformConnector } from "../../../server/connectors/connector.ts";
import { connectorErrors } from "../../../server/connectors/errors.ts";
import { createSimulatedConnector } from "../../../server/connectors/simulated/connector.ts";
import { SimulatedServer } from "../../../server/connectors/simulated/server.ts";
import { openDatabase, type Database } from "../../../server/db/client.ts";
import { auditEvents, balanceOperations, organizations, tradePlatforms } from "../../../server/db/schema.ts";
import { HttpError } from "../../../server/http/errors.ts";
import { performBalanceOperation, type BalanceOperationCall } from "../../../server/modules/accounts/balanceOperations.ts";

let database: Database;
let server: SimulatedServer;
let real: TradePlatformConnector;
let organizationId: string;
const platformId = randomUUID();
/** What the wrapped connector does after (or instead of) the real call. */
let behaviour: "pass" | "timeoutAfterApplying" | "crashAfterApplying" | "timeoutBeforeApplying" = "pass";
const operationIds: string[] = [];

const connector = new Proxy({} as TradePlatformConnector, {
  get(_target, key) {
    if (key === "balanceOperation")
      return async (request: BalanceOperationRequest) => {
        operationIds.push(request.operationId);
        if (behaviour === "timeoutBeforeApplying") throw connectorErrors.timeout(10_000);
        const result = await real.balanceOperation(request);
        if (behaviour === "timeoutAfterApplying") throw connectorErrors.timeout(10_000);
        if (behaviour === "crashAfterApplying") throw new Error("the process died here");
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

const deps = () => ({ db: database.db, connectorFor: async () => connector, leaseMs: 60_000, waitMs: 200 });
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
const balanceOf = async (login: string) => (await real.getAccount(login)).balance;
const rowOf = async (key: string) => (await database.db.select().from(balanceOperations).where(eq(balanceOperations.idempotencyKey, key)))[0]!;
const auditsOf = async (login: string) =>
  database.db.select().from(auditEvents).where(eq(auditEvents.targetId, `${platformId}/${login}`));

async function expectHttpError(promise: Promise<unknown>, status: number, message?: RegExp) {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(HttpError);
  expect((error as HttpError).statusCode).toBe(status);
  if (message) expect((error as HttpError).message).toMatch(message);
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

  it("a crash between the platform and our commit: 409 while the lease holds, then the retry takes over and moves nothing more", async () => {
    const call = await newCall();
    const before = await balanceOf(call.login);
    operationIds.length = 0;
    behaviour = "crashAfterApplying";
    await expect(performBalanceOperation(deps(), call)).rejects.toThrow("the process died here");
    // As if the process had died before it could release anything: the lease still holds.
    await database.db
      .update(balanceOperations)
      .set({ leaseUntil: sql`now() + interval '1 minute'` })
      .where(eq(balanceOperations.idempotencyKey, call.idempotencyKey));
    behaviour = "pass";
    await expectHttpError(performBalanceOperation(deps(), call), 409, /still in progress/);
    expect(operationIds).toHaveLength(1);

    await database.db
      .update(balanceOperations)
      .set({ leaseUntil: sql`now() - interval '1 second'` })
      .where(eq(balanceOperations.idempotencyKey, call.idempotencyKey));
    const outcome = await performBalanceOperation(deps(), call);
    expect(outcome.replayed).toBe(false);
    expect(operationIds).toEqual([operationIds[0], operationIds[0]]);
    expect(await balanceOf(call.login)).toBe(before + 1000);
    expect(await auditsOf(call.login)).toHaveLength(1);
  });

  it("after a rejection the key's answer stays the refusal: the platform is not asked again", async () => {
    const call = await newCall();
    const before = await balanceOf(call.login);
    operationIds.length = 0;
    behaviour = "pass";
    server.faults.rejectNext(1);
    await expectHttpError(performBalanceOperation(deps(), call), 422);
    expect(await rowOf(call.idempotencyKey)).toMatchObject({ status: "rejected", attempt: 1 });
    await expectHttpError(performBalanceOperation(deps(), call), 422);
    expect(await rowOf(call.idempotencyKey)).toMatchObject({ status: "rejected", attempt: 1 });
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
});
