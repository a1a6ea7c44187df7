/**
 * Deposits, withdrawals and credit, exactly once per Idempotency-Key, and never lost once the
 * platform has answered (docs/decisions/0028-balance-operation-outcomes.md).
 *
 *  1. The key's row in `balance_operations` (unique per organization) is inserted as `pending`
 *     with a lease — a fresh `lease_token`, held until the connector's request timeout plus a
 *     margin — in its own short transaction: of concurrent requests with one key exactly one
 *     inserts; the others wait for its outcome and answer with it (or 409 while it runs).
 *  2. The lease holder calls the platform with the row's id as operation id. Connectors are
 *     exactly-once per operation id, so if we crash (or time out) after the platform applied it,
 *     the retry that takes the lease over (with a new token) asks again with the same id and gets
 *     the first result.
 *  3. One transaction marks the row `done` with the answer — only if it still holds its lease
 *     token, so a worker that was taken over changes nothing — writes the audit record, and
 *     updates the mirrored balance and credit (in a savepoint: the mirror is a copy, re-read
 *     from the platform right after, so its failure does not undo the record).
 *  4. If anything fails once the platform has answered — its answer cannot be read, the record
 *     cannot be written — the row is marked `unreconciled` with the reason (and the platform's
 *     figures when known) and the request answers 202 saying so: the money may have moved, a
 *     person checks the account on the platform. Never a 500, never `pending` for good.
 *
 * A platform rejection marks the row `rejected` (nothing is done) and is the key's final answer:
 * a retry with the same key gets the same refusal, like any other first result. A failure that
 * leaves the outcome unknown before any answer (timeout, lost link) keeps it `pending` with the
 * lease given up, so the retry reuses the same operation id. Done and unreconciled outcomes are
 * replayed to a retry with the same key. The same key with a different request is refused (422).
 */
import { createHash } from "node:crypto";
import { moneyFromDecimal, moneyToDecimal, type BalanceOperationResult } from "../../../core/trading/index.ts";
import type { TradePlatformConnector } from "../../connectors/connector.ts";
import { ConnectorError } from "../../connectors/errors.ts";
import type { Db, DbOrTx } from "../../db/client.ts";
import { ConflictError, DomainError, domainErrorOf, NotFoundError, RefusedError } from "../../errors.ts";
import { recordAudit, type Actor } from "../audit/record.ts";
import * as store from "./balanceOperationRepository.ts";
import type { OperationRowNow, TakenRow } from "./balanceOperationRepository.ts";
import { applyBalanceChange, findAccount } from "./repository.ts";
import {
  ANSWER_UNREADABLE,
  DIFFERENT_REQUEST,
  doneAudit,
  doneResult,
  IN_PROGRESS,
  NOT_RECORDED,
  rejectionError,
  replay,
  unreconciledAnswer,
  unreconciledAudit,
  type BalanceOperationOutcome,
  type DoneResult,
  type Rejection,
} from "./balanceOperationOutcomes.ts";
import type { BalanceOperationBody } from "./schemas.ts";
import { operationAmountProblem } from "../../../core/schemas/balanceOperations.ts";

/** What the lease adds to the connector's request timeout: time to record the answer. */
export const LEASE_MARGIN_MS = 30_000;

export interface BalanceOperationLog {
  error(details: object, message: string): void;
}

export interface BalanceOperationDeps {
  db: Db;
  connectorFor(organizationId: string, platformId: string): Promise<TradePlatformConnector>;
  /** Called after a done operation, best effort (the mirror re-reads the account). */
  afterDone?(platformId: string, login: string): void;
  /** Called once per operation recorded as done, best effort (it is published on the event bus). */
  onDone?(operation: { id: string; organizationId: string; platformId: string; login: string; type: string; amount: string; actor: Actor }): void;
  log?: BalanceOperationLog;
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

/** How long a worker holds an operation: longer than the platform may take to answer. */
export function leaseMsFor(connector: Pick<TradePlatformConnector, "requestTimeoutMs">): number {
  return connector.requestTimeoutMs + LEASE_MARGIN_MS;
}

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
  // Past the one bound of an operation: refused before anything is recorded or any platform asked.
  const overLimit = operationAmountProblem(call.body.amount);
  if (overLimit) throw new RefusedError(overLimit);
  const request = canonicalRequest(call);
  const hash = requestHash(request);

  for (let round = 0; round < 5; round++) {
    const existing = await store.findByKey(db, call.organizationId, call.idempotencyKey);
    if (existing) {
      if (existing.requestHash !== hash) throw new RefusedError(DIFFERENT_REQUEST);
      if (existing.status !== "pending") return replay(existing);
      if (existing.leaseActive) {
        const settled = await waitForOutcome(db, existing.id, deps.waitMs ?? 10_000);
        // The attempt we waited for settled: its outcome is this request's answer too.
        if (settled.status !== "pending") return replay(settled);
        if (settled.leaseActive) throw new ConflictError(IN_PROGRESS);
        continue;
      }
      // Pending with its lease given up (unknown outcome, or a crash): this retry takes over with the same operation id.
      const connector = await deps.connectorFor(call.organizationId, call.platformId);
      const taken = await store.takeOver(db, existing, leaseMsFor(connector));
      if (!taken) continue;
      return execute(deps, call, taken, connector);
    }

    // First time this key is seen: the platform must be the organization's, the account known.
    const connector = await deps.connectorFor(call.organizationId, call.platformId);
    if (!(await findAccount(db, call.organizationId, call.platformId, call.login))) throw new NotFoundError("No such account");
    const inserted = await store.insertPending(
      db,
      {
        ...request,
        platformId: call.platformId,
        organizationId: call.organizationId,
        idempotencyKey: call.idempotencyKey,
        requestHash: hash,
        actorSub: call.actor.sub,
      },
      leaseMsFor(connector),
    );
    // Another request with this key inserted first: go round and follow it.
    if (!inserted) continue;
    return execute(deps, call, inserted, connector);
  }
  throw new ConflictError(IN_PROGRESS);
}

async function execute(
  deps: BalanceOperationDeps,
  call: BalanceOperationCall,
  row: TakenRow,
  connector: TradePlatformConnector,
): Promise<BalanceOperationOutcome> {
  const { db } = deps;
  let result: BalanceOperationResult;
  try {
    result = await connector.balanceOperation({
      operationId: row.id,
      login: row.login,
      type: row.type,
      amount: moneyFromDecimal(row.amount),
      comment: row.comment,
    });
  } catch (error) {
    if (!(error instanceof ConnectorError)) {
      // Not a platform's word but a failure on our side of the wire, typically its answer not
      // being readable: asking again would read the same answer. A person must look.
      return recordUnreconciled(deps, call, row, null, ANSWER_UNREADABLE, error);
    }
    if (error.code === "rejected" || error.code === "invalidRequest" || error.code === "notFound") {
      // The platform refused it: nothing happened. Recorded as the key's final answer.
      const rejection: Rejection = { code: error.code, reason: error.reason, message: error.message };
      if (!(await store.settle(db, row, { status: "rejected", result: rejection }))) return follow(db, row.id);
      throw rejectionError(rejection);
    }
    // We do not know whether the platform applied it: keep it pending and let the next retry ask
    // again with the same operation id (the platform answers a repeat with its first result).
    await store.releaseLease(db, row);
    const known = domainErrorOf(error);
    throw new DomainError(known.kind, `${known.message} Retry with the same Idempotency-Key: the operation will not be applied twice.`);
  }

  let done: DoneResult;
  try {
    done = doneResult(row, result);
  } catch (error) {
    return recordUnreconciled(deps, call, row, null, ANSWER_UNREADABLE, error);
  }
  try {
    const recorded = await db.transaction(async (tx) => {
      // Taken over by someone else (our lease ran out): theirs stands, with the same platform result.
      if (!(await store.settle(tx, row, { status: "done", result: done }))) return false;
      await recordAudit(tx, call.actor, doneAudit(row, result, done));
      await inSavepoint(
        tx,
        (sp) => applyBalanceChange(sp, row.platformId, row.login, { balance: done.balance, credit: done.credit }),
        (error) => deps.log?.error({ err: error, operationId: row.id }, "mirror not updated after a balance operation; the refresh will catch up"),
      );
      return true;
    });
    if (!recorded) return follow(db, row.id);
  } catch (error) {
    return recordUnreconciled(deps, call, row, done, NOT_RECORDED, error);
  }
  deps.afterDone?.(row.platformId, row.login);
  deps.onDone?.({
    id: row.id,
    organizationId: call.organizationId,
    platformId: row.platformId,
    login: row.login,
    type: row.type,
    amount: row.amount,
    actor: call.actor,
  });
  return { answer: { status: "done", ...done }, replayed: false };
}

/**
 * The platform answered but the outcome could not be recorded as done: record it as
 * unreconciled with the reason, in its own transaction. If even that fails (the database is
 * down), the answer still says what happened; the row stays pending under this lease, and once
 * the lease runs out a retry with the key asks the platform again (same operation id, so nothing
 * moves twice) and records it.
 */
async function recordUnreconciled(
  deps: BalanceOperationDeps,
  call: BalanceOperationCall,
  row: TakenRow,
  known: DoneResult | null,
  reason: string,
  cause: unknown,
): Promise<BalanceOperationOutcome> {
  deps.log?.error({ err: cause, operationId: row.id }, "balance operation answered by the platform but not recorded as done");
  try {
    const settled = await deps.db.transaction(async (tx) => {
      if (!(await store.settle(tx, row, { status: "unreconciled", result: known, reason }))) return false;
      // The audit log should say so too, if it can: the row above is the record either way.
      await inSavepoint(
        tx,
        (sp) => recordAudit(sp, call.actor, unreconciledAudit(row, known, reason)),
        () => undefined,
      );
      return true;
    });
    if (!settled) return follow(deps.db, row.id);
  } catch (error) {
    deps.log?.error({ err: error, operationId: row.id }, "balance operation outcome could not be recorded; a retry with its key will");
  }
  return { answer: unreconciledAnswer(row, known, reason), replayed: false };
}

/** Runs `work` in a savepoint of `tx`; its failure is reported and undone without aborting `tx`. */
async function inSavepoint(tx: DbOrTx, work: (sp: DbOrTx) => Promise<unknown>, onError: (error: unknown) => void): Promise<void> {
  try {
    await tx.transaction(async (sp) => {
      await work(sp);
    });
  } catch (error) {
    onError(error);
  }
}

/** Our lease was taken over: answer with what the worker that took it recorded. */
async function follow(db: Db, id: string): Promise<BalanceOperationOutcome> {
  const row = await store.findById(db, id);
  if (!row) throw new ConflictError(IN_PROGRESS);
  return replay(row);
}

async function waitForOutcome(db: Db, id: string, waitMs: number): Promise<OperationRowNow> {
  const deadline = Date.now() + waitMs;
  for (let delay = 10; ; delay = Math.min(delay * 2, 100)) {
    const row = await store.findById(db, id);
    if (!row) throw new ConflictError(IN_PROGRESS);
    if (row.status !== "pending" || !row.leaseActive || Date.now() >= deadline) return row;
    await new Promise((resolve) => setTimeout(resolve, delay));
  }
}
