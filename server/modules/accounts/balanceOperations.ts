/**
 * Deposits, withdrawals and credit, exactly once per Idempotency-Key (docs: "Balance operations").
 *
 *  1. The key's row in `balance_operations` (unique per organization) is inserted as `pending`
 *     with a lease, in its own short transaction: of concurrent requests with one key exactly
 *     one inserts; the others wait for its outcome and answer with it (or 409 while it runs).
 *  2. The winner calls the platform with the row's id as operation id. Connectors are
 *     exactly-once per operation id, so if we crash (or time out) after the platform applied it,
 *     the retry that takes the lease over asks again with the same id and gets the first result.
 *  3. One transaction marks the row `done` with the answer (only if it still holds the lease
 *     attempt), updates the mirrored balance and credit, and writes the audit record.
 *
 * A platform rejection marks the row `rejected` (nothing is done) and is the key's final answer:
 * a retry with the same key gets the same refusal, like any other first result (to try again,
 * the person sends a new operation with a new key). An unknown outcome (timeout, lost link)
 * leaves it `pending` with the lease given up, so the retry reuses the same operation id.
 * The same key with a different request is refused (422), whatever the row's state.
 */
import { createHash } from "node:crypto";
import { and, eq, getTableColumns, lt, sql } from "drizzle-orm";
import {
  isCreditOperation,
  moneyFromDecimal,
  moneyToDecimal,
  signedAmount,
  type BalanceOperationResult,
} from "../../../core/trading/index.ts";
import type { TradePlatformConnector } from "../../connectors/connector.ts";
import { ConnectorError } from "../../connectors/errors.ts";
import type { Db } from "../../db/client.ts";
import { balanceOperations } from "../../db/schema.ts";
import { HttpError } from "../../http/errors.ts";
import { recordAudit, type Actor } from "../audit/record.ts";
import { httpErrorOf } from "./connectorErrors.ts";
import { applyBalanceChange, findAccount } from "./repository.ts";
import type { BalanceOperationAnswer, BalanceOperationBody } from "./schemas.ts";

export interface BalanceOperationDeps {
  db: Db;
  connectorFor(organizationId: string, platformId: string): Promise<TradePlatformConnector>;
  /** Called after a done operation, best effort (the mirror re-reads the account). */
  afterDone?(platformId: string, login: string): void;
  /** How long a running attempt keeps others off; longer than any platform request. */
  leaseMs?: number;
  /** How long a concurrent retry waits for the running attempt before answering 409. */
  waitMs?: number;
}

export interface BalanceOperationCall {
  organizationId: string;
  platformId: string;
  login: string;
  idempotencyKey: string;
  body: BalanceOperationBody;
  actor: Actor;
}

export interface BalanceOperationOutcome {
  answer: BalanceOperationAnswer;
  /** The answer is the stored first result of this key. */
  replayed: boolean;
}

type Row = typeof balanceOperations.$inferSelect;
/** A row with its lease judged by the database's clock (the one that set it). */
type RowNow = Row & { leaseActive: boolean };

interface Rejection {
  code: string;
  reason?: string;
  message: string;
}

export const DIFFERENT_REQUEST = "This Idempotency-Key was already used for a different operation";
export const IN_PROGRESS = "The same operation is still in progress; retry in a moment";

/** The request a key stands for, in one spelling ("100" and "100.00" are the same amount). */
export function canonicalRequest(call: Pick<BalanceOperationCall, "platformId" | "login" | "body">) {
  return {
    platformId: call.platformId.toLowerCase(),
    login: call.login,
    type: call.body.type,
    amount: moneyToDecimal(moneyFromDecimal(call.body.amount)),
    comment: call.body.comment ?? "",
  };
}

export function requestHash(request: ReturnType<typeof canonicalRequest>): string {
  const text = JSON.stringify([request.platformId, request.login, request.type, request.amount, request.comment]);
  return createHash("sha256").update(text).digest("hex");
}

export async function performBalanceOperation(deps: BalanceOperationDeps, call: BalanceOperationCall): Promise<BalanceOperationOutcome> {
  const { db } = deps;
  const leaseMs = deps.leaseMs ?? 60_000;
  const request = canonicalRequest(call);
  const hash = requestHash(request);

  for (let round = 0; round < 5; round++) {
    const existing = await findByKey(db, call.organizationId, call.idempotencyKey);
    if (existing) {
      if (existing.requestHash !== hash) throw new HttpError(422, DIFFERENT_REQUEST);
      if (existing.status === "done") return { answer: existing.result as BalanceOperationAnswer, replayed: true };
      if (existing.status === "rejected") throw rejectionError(existing.result as Rejection);
      if (existing.status === "pending" && existing.leaseActive) {
        const settled = await waitForOutcome(db, existing.id, deps.waitMs ?? 10_000);
        if (settled.status === "done") return { answer: settled.result as BalanceOperationAnswer, replayed: true };
        // The attempt we waited for was refused: that is this request's answer too.
        if (settled.status === "rejected") throw rejectionError(settled.result as Rejection);
        if (settled.leaseActive) throw new HttpError(409, IN_PROGRESS);
        continue;
      }
      // Pending with its lease given up (unknown outcome, or a crash): this retry takes over with the same operation id.
      const connector = await deps.connectorFor(call.organizationId, call.platformId);
      const claimed = await claim(db, existing, leaseMs);
      if (!claimed) continue;
      return execute(deps, call, claimed, connector);
    }

    // First time this key is seen: the platform must be the organization's, the account known.
    const connector = await deps.connectorFor(call.organizationId, call.platformId);
    if (!(await findAccount(db, call.organizationId, call.platformId, call.login))) throw new HttpError(404, "No such account");
    const [inserted] = await db
      .insert(balanceOperations)
      .values({
        organizationId: call.organizationId,
        platformId: call.platformId,
        login: call.login,
        idempotencyKey: call.idempotencyKey,
        requestHash: hash,
        type: request.type,
        amount: request.amount,
        comment: request.comment,
        status: "pending",
        leaseUntil: sql`now() + ${`${leaseMs} milliseconds`}::interval`,
        actorSub: call.actor.sub,
      })
      .onConflictDoNothing({ target: [balanceOperations.organizationId, balanceOperations.idempotencyKey] })
      .returning();
    // Another request with this key inserted first: go round and follow it.
    if (!inserted) continue;
    return execute(deps, call, inserted, connector);
  }
  throw new HttpError(409, IN_PROGRESS);
}

async function execute(
  deps: BalanceOperationDeps,
  call: BalanceOperationCall,
  row: Row,
  connector: TradePlatformConnector,
): Promise<BalanceOperationOutcome> {
  const { db } = deps;
  const operationId = row.attempt === 1 ? row.id : `${row.id}.${row.attempt}`;
  let result: BalanceOperationResult;
  try {
    result = await connector.balanceOperation({
      operationId,
      login: row.login,
      type: row.type,
      amount: moneyFromDecimal(row.amount),
      comment: row.comment,
    });
  } catch (error) {
    if (error instanceof ConnectorError && (error.code === "rejected" || error.code === "invalidRequest" || error.code === "notFound")) {
      // The platform refused it: nothing happened. Recorded as the key's final answer.
      const rejection: Rejection = { code: error.code, reason: error.reason, message: error.message };
      await db
        .update(balanceOperations)
        .set({ status: "rejected", result: rejection, updatedAt: sql`now()` })
        .where(and(eq(balanceOperations.id, row.id), eq(balanceOperations.status, "pending"), eq(balanceOperations.attempt, row.attempt)));
      throw rejectionError(rejection);
    }
    // We do not know whether the platform applied it: keep it pending and let the next retry ask
    // again with the same operation id (the platform answers a repeat with its first result).
    await db
      .update(balanceOperations)
      .set({ leaseUntil: sql`now()`, updatedAt: sql`now()` })
      .where(and(eq(balanceOperations.id, row.id), eq(balanceOperations.status, "pending"), eq(balanceOperations.attempt, row.attempt)));
    const known = httpErrorOf(error);
    if (known instanceof HttpError)
      throw new HttpError(
        known.statusCode,
        `${known.message} Retry with the same Idempotency-Key: the operation will not be applied twice.`,
      );
    throw error;
  }

  const answer: BalanceOperationAnswer = {
    operationId: row.id,
    type: row.type,
    amount: row.amount,
    balance: moneyToDecimal(result.balance),
    credit: moneyToDecimal(result.credit),
    at: new Date(result.time).toISOString(),
  };
  const credit = isCreditOperation(row.type);
  const signed = signedAmount(row.type, moneyFromDecimal(row.amount));
  const recorded = await db.transaction(async (tx) => {
    const [marked] = await tx
      .update(balanceOperations)
      .set({ status: "done", result: answer, updatedAt: sql`now()` })
      .where(and(eq(balanceOperations.id, row.id), eq(balanceOperations.status, "pending"), eq(balanceOperations.attempt, row.attempt)))
      .returning({ id: balanceOperations.id });
    // Someone who took the lease over finished first (with the same platform result): theirs stands.
    if (!marked) return false;
    await applyBalanceChange(tx, row.platformId, row.login, { balance: answer.balance, credit: answer.credit });
    await recordAudit(tx, call.actor, {
      action: `account.balance.${row.type}`,
      targetType: "tradingAccount",
      targetId: `${row.platformId}/${row.login}`,
      // The platform's figures right before this operation (the mirror may already show its effect).
      before: {
        balance: moneyToDecimal(result.balance - (credit ? 0 : signed)),
        credit: moneyToDecimal(result.credit - (credit ? signed : 0)),
      },
      after: {
        balance: answer.balance,
        credit: answer.credit,
        type: row.type,
        amount: row.amount,
        comment: row.comment,
        operationId: answer.operationId,
        dealId: result.dealId,
        idempotencyKey: row.idempotencyKey,
      },
    });
    return true;
  });
  if (!recorded) {
    const stored = await findById(db, row.id);
    if (stored?.status === "done") return { answer: stored.result as BalanceOperationAnswer, replayed: true };
    throw new HttpError(409, IN_PROGRESS);
  }
  deps.afterDone?.(row.platformId, row.login);
  return { answer, replayed: false };
}

/** Take over a pending row whose lease ran out: same attempt, same operation id. */
async function claim(db: Db, row: Row, leaseMs: number): Promise<Row | undefined> {
  const lease = sql`now() + ${`${leaseMs} milliseconds`}::interval`;
  const t = balanceOperations;
  if (row.status === "pending") {
    const [claimed] = await db
      .update(t)
      .set({ leaseUntil: lease, updatedAt: sql`now()` })
      .where(and(eq(t.id, row.id), eq(t.status, "pending"), eq(t.attempt, row.attempt), lt(t.leaseUntil, sql`now()`)))
      .returning();
    return claimed;
  }
  return undefined;
}

async function waitForOutcome(db: Db, id: string, waitMs: number): Promise<RowNow> {
  const deadline = Date.now() + waitMs;
  for (let delay = 10; ; delay = Math.min(delay * 2, 100)) {
    const row = await findById(db, id);
    if (!row) throw new HttpError(409, IN_PROGRESS);
    if (row.status !== "pending" || !row.leaseActive || Date.now() >= deadline) return row;
    await new Promise((resolve) => setTimeout(resolve, delay));
  }
}

function rejectionError(rejection: Rejection | null): HttpError {
  const message = rejection?.message ?? "The trading platform refused the operation.";
  return new HttpError(rejection?.code === "notFound" ? 404 : 422, message);
}

const withLease = { ...getTableColumns(balanceOperations), leaseActive: sql<boolean>`${balanceOperations.leaseUntil} > now()` };

async function findByKey(db: Db, organizationId: string, key: string): Promise<RowNow | undefined> {
  const [row] = await db
    .select(withLease)
    .from(balanceOperations)
    .where(and(eq(balanceOperations.organizationId, organizationId), eq(balanceOperations.idempotencyKey, key)))
    .limit(1);
  return row;
}

async function findById(db: Db, id: string): Promise<RowNow | undefined> {
  const [row] = await db.select(withLease).from(balanceOperations).where(eq(balanceOperations.id, id)).limit(1);
  return row;
}
