import type { AccountRow, BalanceOperationResult } from "../accountTypes";
import type { BalanceOperationInput, NewAccountInput } from "../accountsApi";
import { BalanceSubmission } from "./balanceSubmission";

export interface CreateAccountApi {
  create: (body: NewAccountInput) => Promise<AccountRow>;
  balanceOperation: (platformId: string, login: string, body: BalanceOperationInput, idempotencyKey: string) => Promise<BalanceOperationResult>;
}

export interface Created {
  row: AccountRow;
  /** The initial deposit's answer; null when none was asked. */
  deposit: BalanceOperationResult | null;
  /** Why the initial deposit was not done (the account exists either way). */
  depositError: unknown;
}

/**
 * A new account, then its initial deposit, exactly once: the deposit is a balance operation with
 * its own Idempotency-Key (balanceSubmission.ts), so an answer lost on the way is asked again with
 * the same key and the money moves once. The account is created once too: a failed deposit does
 * not fail the creation (a second click would make a second account); it is reported beside it.
 */
export async function createAccountWithDeposit(
  api: CreateAccountApi,
  account: NewAccountInput,
  initialDeposit: string | null,
  submission: BalanceSubmission<BalanceOperationInput, BalanceOperationResult> = new BalanceSubmission(),
): Promise<Created> {
  const row = await api.create(account);
  if (!initialDeposit) return { row, deposit: null, depositError: null };
  const body: BalanceOperationInput = { type: "deposit", amount: initialDeposit, comment: "Initial deposit" };
  try {
    const deposit = await submission.submit(body, (b, key) => api.balanceOperation(row.platformId, row.login, b, key));
    return { row, deposit, depositError: null };
  } catch (error) {
    return { row, deposit: null, depositError: error };
  }
}
