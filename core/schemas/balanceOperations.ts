/**
 * Balance operations (POST and GET /api/accounts/{platformId}/{login}/balance-operations),
 * written once for the API, the OpenAPI document, the balance dialog's checks and the app's
 * types. Outcomes: docs/decisions/0028-balance-operation-outcomes.md.
 */
import { z } from "zod";
import { BALANCE_OPERATION_TYPES, MAX_COMMENT_LENGTH } from "../trading/balance.ts";
import { MAX_OPERATION_AMOUNT, moneyFromDecimal, moneyToDecimal } from "../trading/money.ts";
import { text } from "./accounts.ts";
import { MoneySchema } from "./accountViews.ts";

/** Amounts as typed: positive, at most two decimals (every account currency here keeps two). */
export const AMOUNT_PATTERN = /^\d{1,12}(\.\d{1,2})?$/;
/** "1,000,000,000.00": the most one operation may move (core/trading/money.ts). */
export const MAX_OPERATION_AMOUNT_TEXT = Number(moneyToDecimal(MAX_OPERATION_AMOUNT)).toLocaleString("en", { minimumFractionDigits: 2 });

/**
 * Why a well-formed amount may not be moved in one operation, or null. The API answers it with 422
 * (a rule refused a request it understood, as a platform would: MT5's 4005 TRADE_MAX_MONEY) before
 * any platform is asked; the form shows it as the field's error.
 */
export function operationAmountProblem(amount: string): string | null {
  if (!AMOUNT_PATTERN.test(amount.trim()) || moneyFromDecimal(amount.trim()) <= MAX_OPERATION_AMOUNT) return null;
  return TOO_LARGE;
}

const TOO_LARGE = `amount is too large: at most ${MAX_OPERATION_AMOUNT_TEXT} in one operation; split a larger movement into several`;
/** More whole digits than the pattern takes (999999999999999): too large, whatever its decimals. */
const TOO_MANY_DIGITS = /^\d{13,}(\.\d*)?$/;

/** The amount's form: a positive decimal with at most two decimals (400 when not). */
export const BalanceAmountFormatSchema = z
  .string({ error: 'amount must be a decimal string such as "100.00"' })
  .trim()
  .regex(AMOUNT_PATTERN, {
    error: (issue) =>
      TOO_MANY_DIGITS.test(String(issue.input).trim()) ? TOO_LARGE : 'amount must be a positive amount with at most 2 decimals, such as "100" or "99.95"',
  })
  .refine((v) => Number(v) > 0, { error: "amount must be greater than zero" })
  .meta({ description: `Decimal amount; at most ${MAX_OPERATION_AMOUNT_TEXT} in one operation (422 beyond)` });

/** Form and bound together, for the balance dialog's field. */
export const BalanceAmountSchema = BalanceAmountFormatSchema.refine((v) => operationAmountProblem(v) === null, {
  error: (issue) => operationAmountProblem(String(issue.input)) ?? "amount is too large",
});

export const BalanceCommentSchema = text("comment", MAX_COMMENT_LENGTH);

export const BalanceOperationBodySchema = z.object(
  {
    type: z.enum(BALANCE_OPERATION_TYPES, { error: `type must be one of: ${BALANCE_OPERATION_TYPES.join(", ")}` }),
    amount: BalanceAmountFormatSchema,
    comment: BalanceCommentSchema.optional(),
  },
  { error: 'The body must be a JSON object such as {"type": "deposit", "amount": "100.00"}' },
);
export type BalanceOperationBody = z.infer<typeof BalanceOperationBodySchema>;

export const IDEMPOTENCY_KEY_MIN = 8;
export const IDEMPOTENCY_KEY_MAX = 200;
const keyLength = `The Idempotency-Key must be ${IDEMPOTENCY_KEY_MIN} to ${IDEMPOTENCY_KEY_MAX} characters`;

export const IdempotencyKeySchema = z
  .string({
    error: `Send an Idempotency-Key header (${IDEMPOTENCY_KEY_MIN} to ${IDEMPOTENCY_KEY_MAX} characters, e.g. a UUID) so a retry never moves money twice`,
  })
  .trim()
  .min(IDEMPOTENCY_KEY_MIN, { error: keyLength })
  .max(IDEMPOTENCY_KEY_MAX, { error: keyLength })
  .regex(/^[\x21-\x7e]+$/, { error: "The Idempotency-Key must be visible ASCII characters (a UUID is a good choice)" });

export const IdempotencyHeadersSchema = z.looseObject({ "idempotency-key": IdempotencyKeySchema });

const operationFields = {
  operationId: z.guid(),
  type: z.enum(BALANCE_OPERATION_TYPES),
  amount: MoneySchema,
};

/** 201: the platform applied it and Toolbox recorded it (audit row written). */
export const BalanceOperationResultSchema = z.object({
  status: z.literal("done"),
  ...operationFields,
  balance: MoneySchema,
  credit: MoneySchema,
  at: z.iso.datetime(),
});
export type BalanceOperationDone = z.infer<typeof BalanceOperationResultSchema>;

/**
 * 202: the platform answered but Toolbox could not finish recording it (its answer could not be
 * read, or the audit record could not be written). The money may well have moved: not a failure
 * to retry with a new key, but one for a person to check on the platform.
 */
export const BalanceOperationUnreconciledSchema = z.object({
  status: z.literal("unreconciled"),
  ...operationFields,
  reason: z.string(),
  balance: MoneySchema.nullable().meta({ description: "The platform's figures after the operation, when its answer could be read" }),
  credit: MoneySchema.nullable(),
  at: z.iso.datetime().nullable(),
});
export type BalanceOperationUnreconciled = z.infer<typeof BalanceOperationUnreconciledSchema>;

export type BalanceOperationAnswer = BalanceOperationDone | BalanceOperationUnreconciled;

export const BALANCE_OPERATION_STATUSES = ["pending", "done", "rejected", "unreconciled"] as const;

/** One of the account's balance operations made through Toolbox, for the account panel. */
export const BalanceOperationRecordSchema = z.object({
  ...operationFields,
  comment: z.string(),
  status: z.enum(BALANCE_OPERATION_STATUSES),
  needsReconciling: z.boolean().meta({
    description: "Unreconciled, or pending with nobody working on it (the platform did not answer in time): check the account on the platform",
  }),
  reason: z.string().nullable(),
  balance: MoneySchema.nullable(),
  credit: MoneySchema.nullable(),
  createdAt: z.iso.datetime(),
  updatedAt: z.iso.datetime(),
});
export type BalanceOperationRecord = z.infer<typeof BalanceOperationRecordSchema>;
