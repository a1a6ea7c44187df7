import type { Money } from "./money.ts";
import type { Timestamp } from "./platform.ts";

export type BalanceOperationType = "deposit" | "withdrawal" | "creditIn" | "creditOut";

/** The longest comment MetaTrader keeps on a deal (31 characters); every platform is held to it. */
export const MAX_COMMENT_LENGTH = 31;

export const BALANCE_OPERATION_TYPES: readonly BalanceOperationType[] = ["deposit", "withdrawal", "creditIn", "creditOut"];

/**
 * A deposit, withdrawal or credit movement. `operationId` is chosen by the caller (Toolbox uses
 * the request's Idempotency-Key) and makes it exactly-once: a retry with the same id returns the
 * first result; the same id with a different request is refused.
 */
export interface BalanceOperationRequest {
  operationId: string;
  login: string;
  type: BalanceOperationType;
  /** Positive, in minor units of the account currency; the type gives the direction. */
  amount: Money;
  comment: string;
}

export interface BalanceOperationResult {
  operationId: string;
  login: string;
  type: BalanceOperationType;
  amount: Money;
  dealId: string;
  time: Timestamp;
  /** Balance and credit right after the operation. */
  balance: Money;
  credit: Money;
}

export function isCreditOperation(type: BalanceOperationType): boolean {
  return type === "creditIn" || type === "creditOut";
}

/** The signed change the operation makes to balance (deposit, withdrawal) or credit. */
export function signedAmount(type: BalanceOperationType, amount: Money): Money {
  return type === "deposit" || type === "creditIn" ? amount : -amount;
}

export function balanceOperationType(credit: boolean, signed: Money): BalanceOperationType {
  if (credit) return signed >= 0 ? "creditIn" : "creditOut";
  return signed >= 0 ? "deposit" : "withdrawal";
}
