/** Deposits, withdrawals and credit on the simulated server. */
import { isCreditOperation, signedAmount, type BalanceOperationRequest, type BalanceOperationResult, type Deal } from "../../../../core/trading/index.ts";
import { connectorErrors } from "../../errors.ts";
import { commit, now, type EngineContext } from "./context.ts";
import { formatMoney, requireOperationAmount, requireWithinAccountBound } from "./rules.ts";
import { figuresOf, snapshotAccount } from "./valuation.ts";

export function balanceOperation(ctx: EngineContext, request: BalanceOperationRequest): BalanceOperationResult {
  const account = ctx.state.account(request.login);
  const money = (amount: number) => formatMoney(amount, account.currency);
  requireOperationAmount(request.amount, account.currency);
  if (request.type === "withdrawal") {
    // Credit is the broker's money: only balance that is not holding up positions can leave.
    const free = Math.min(account.balance, figuresOf(ctx, account).freeMargin);
    if (request.amount > free)
      throw connectorErrors.rejected("notEnoughMoney", `Cannot withdraw ${money(request.amount)}: ${money(Math.max(0, free))} can be withdrawn now.`);
  }
  if (request.type === "creditOut" && request.amount > account.credit)
    throw connectorErrors.rejected("notEnoughMoney", `Cannot take out ${money(request.amount)} of credit: the account has ${money(account.credit)}.`);

  const credit = isCreditOperation(request.type);
  const signed = signedAmount(request.type, request.amount);
  // Balance, credit and equity all stay within the account bound, or nothing happens.
  if (credit) requireWithinAccountBound("credit", account.credit + signed, account.currency);
  else requireWithinAccountBound("balance", account.balance + signed, account.currency);
  requireWithinAccountBound("equity", figuresOf(ctx, account).equity + signed, account.currency);
  const time = now(ctx);
  const ids = ctx.flavour.moneyDeal(credit);
  const deal: Deal = {
    id: ids.id,
    login: account.login,
    time,
    action: credit ? "credit" : "balance",
    entry: null,
    positionId: null,
    symbol: null,
    volume: 0,
    price: 0,
    profit: signed,
    commission: 0,
    swap: 0,
    comment: request.comment,
    reason: "dealer",
    native: ids.native,
  };
  if (credit) account.credit += signed;
  else account.balance += signed;
  ctx.state.addDeal(deal);
  ctx.journal.write(time, "ok", `'${account.login}': ${request.type} ${money(request.amount)} '${request.comment}' (#${deal.id})`, account.login);
  commit(ctx, [
    { type: "dealAdded", time, login: account.login, deal },
    { type: "accountChanged", time, login: account.login, account: snapshotAccount(ctx, account) },
  ]);
  return {
    operationId: request.operationId,
    login: account.login,
    type: request.type,
    amount: request.amount,
    dealId: deal.id,
    time,
    balance: account.balance,
    credit: account.credit,
  };
}
