/**
 * The outcomes of balance operations as the API and the audit log state them: the answer to the
 * request (done, or unreconciled with its reason), its replay to a retry with the same key, the
 * audit entries, and the account's list of operations with those to reconcile marked.
 * The protocol that reaches them is ./balanceOperations.ts.
 */
import { isCreditOperation, moneyFromDecimal, moneyToDecimal, signedAmount, type BalanceOperationResult } from "../../../core/trading/index.ts";
import type { Db } from "../../db/client.ts";
import { ConflictError, NotFoundError, RefusedError, type DomainError } from "../../errors.ts";
import * as store from "./balanceOperationRepository.ts";
import type { OperationRow } from "./balanceOperationRepository.ts";
import type { BalanceOperationAnswer, BalanceOperationDone, BalanceOperationRecord, BalanceOperationUnreconciled } from "./schemas.ts";

export interface BalanceOperationOutcome {
  answer: BalanceOperationAnswer;
  /** The answer is the stored first result of this key. */
  replayed: boolean;
}

/** How many of an account's latest operations the account panel shows. */
const RECENT_OPERATIONS = 20;

export interface Rejection {
  code: string;
  reason?: string;
  message: string;
}

/** The figures of a done operation, as stored in `result` (the status is the row's). */
export type DoneResult = Omit<BalanceOperationDone, "status">;

export const DIFFERENT_REQUEST = "This Idempotency-Key was already used for a different operation";
export const IN_PROGRESS = "The same operation is still in progress; retry in a moment";
export const ANSWER_UNREADABLE =
  "The trading platform answered, but Toolbox could not read its answer, so it does not know whether the money moved. Check the account's deals on the platform.";
export const NOT_RECORDED =
  "The trading platform applied the operation, but Toolbox could not write its audit record. The figures shown are the platform's; check the audit log.";
export const NO_ANSWER_YET =
  "The trading platform did not answer in time and nobody has retried it since: whether the money moved is unknown. Check the account's deals on the platform.";

/** The answer of a settled row, for a retry with its key (a refusal is thrown, as the first time). */
export function replay(row: OperationRow): BalanceOperationOutcome {
  switch (row.status) {
    case "done":
      return { answer: { status: "done", ...(row.result as DoneResult) }, replayed: true };
    case "unreconciled":
      return { answer: unreconciledAnswer(row, row.result as DoneResult | null, row.reason ?? ANSWER_UNREADABLE), replayed: true };
    case "rejected":
      throw rejectionError(row.result as Rejection | null);
    case "pending":
      throw new ConflictError(IN_PROGRESS);
  }
}

export function rejectionError(rejection: Rejection | null): DomainError {
  const message = rejection?.message ?? "The trading platform refused the operation.";
  return rejection?.code === "notFound" ? new NotFoundError(message) : new RefusedError(message);
}

export function doneResult(row: OperationRow, result: BalanceOperationResult): DoneResult {
  return {
    operationId: row.id,
    type: row.type,
    amount: row.amount,
    balance: moneyToDecimal(result.balance),
    credit: moneyToDecimal(result.credit),
    at: new Date(result.time).toISOString(),
  };
}

export function unreconciledAnswer(row: OperationRow, known: DoneResult | null, reason: string): BalanceOperationUnreconciled {
  return {
    status: "unreconciled",
    operationId: row.id,
    type: row.type,
    amount: row.amount,
    reason,
    balance: known?.balance ?? null,
    credit: known?.credit ?? null,
    at: known?.at ?? null,
  };
}

export function doneAudit(row: OperationRow, result: BalanceOperationResult, done: DoneResult) {
  const credit = isCreditOperation(row.type);
  const signed = signedAmount(row.type, moneyFromDecimal(row.amount));
  return {
    action: `account.balance.${row.type}`,
    targetType: "tradingAccount",
    targetId: `${row.platformId}/${row.login}`,
    // The platform's figures right before this operation (the mirror may already show its effect).
    before: {
      balance: moneyToDecimal(result.balance - (credit ? 0 : signed)),
      credit: moneyToDecimal(result.credit - (credit ? signed : 0)),
    },
    after: {
      balance: done.balance,
      credit: done.credit,
      type: row.type,
      amount: row.amount,
      comment: row.comment,
      operationId: done.operationId,
      dealId: result.dealId,
      idempotencyKey: row.idempotencyKey,
    },
  };
}

export function unreconciledAudit(row: OperationRow, known: DoneResult | null, reason: string) {
  return {
    action: "account.balance.unreconciled",
    targetType: "tradingAccount",
    targetId: `${row.platformId}/${row.login}`,
    after: {
      type: row.type,
      amount: row.amount,
      comment: row.comment,
      operationId: row.id,
      idempotencyKey: row.idempotencyKey,
      reason,
      balance: known?.balance ?? null,
      credit: known?.credit ?? null,
    },
  };
}
/** The account's latest operations, for the account panel; those a person must check are marked. */
export async function recentBalanceOperations(db: Db, organizationId: string, platformId: string, login: string): Promise<BalanceOperationRecord[]> {
  const rows = await store.recentOperations(db, organizationId, platformId, login, RECENT_OPERATIONS);
  return rows.map((row) => {
    const stale = row.status === "pending" && !row.leaseActive;
    const figures = row.status === "done" || row.status === "unreconciled" ? (row.result as DoneResult | null) : null;
    return {
      operationId: row.id,
      type: row.type,
      amount: row.amount,
      comment: row.comment,
      status: row.status,
      needsReconciling: row.status === "unreconciled" || stale,
      reason: row.reason ?? (stale ? NO_ANSWER_YET : row.status === "rejected" ? ((row.result as Rejection | null)?.message ?? null) : null),
      balance: figures?.balance ?? null,
      credit: figures?.credit ?? null,
      createdAt: row.createdAt.toISOString(),
      updatedAt: row.updatedAt.toISOString(),
    };
  });
}
