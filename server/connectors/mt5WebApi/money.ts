/**
 * Exactly-once money over the MT5 Web API, which has no operation id: `/api/trade/balance` moves
 * money every time it is called. The operation is tagged in the deal's comment and, before
 * anything is sent, the account's recent deals are searched for the tag (server/connectors/
 * operationOnce.ts). Found: the operation already happened (perhaps its answer was lost with the
 * connection, perhaps in a Toolbox process that has since died), and its result is rebuilt from
 * the deal; not found: it is sent. The user's comment keeps its first 20 characters (the vendor's
 * limit is 32).
 */
import { moneyFromDecimal } from "../../../core/trading/index.ts";
import { connectorErrors } from "../errors.ts";
import { OncePerOperation, operationAlreadyUsed, operationTag, taggedComment } from "../operationOnce.ts";
import type { Mt5BalanceAnswer, Mt5BalanceRequest, Mt5Deal, Mt5User } from "../mt5/native.ts";

export const MAX_TAGGED_COMMENT = 20;

export interface BalanceWire {
  /** Server time now, in milliseconds. */
  now(): number;
  lookback: number;
  /** Deals of a login within [from, to], unix seconds of server time; comments as stored. */
  deals(login: string, fromSeconds: number, toSeconds: number): Promise<Mt5Deal[]>;
  /** Calls `/api/trade/balance`; resolves with the deal ticket. */
  apply(params: { login: string; type: number; balance: string; comment: string }): Promise<string>;
  account(login: string): Promise<Mt5User>;
}

export class BalanceOnce {
  private readonly once = new OncePerOperation<Mt5BalanceAnswer>();

  run(request: Mt5BalanceRequest, wire: BalanceWire): Promise<Mt5BalanceAnswer> {
    const fingerprint = JSON.stringify([request.Login, request.Type, moneyFromDecimal(request.Balance), request.Comment]);
    return this.once.run(request.RequestId, fingerprint, () => this.perform(request, wire));
  }

  private async perform(request: Mt5BalanceRequest, wire: BalanceWire): Promise<Mt5BalanceAnswer> {
    const tag = operationTag(request.RequestId);
    let deal = await this.find(request.Login, tag, wire);
    if (deal) {
      if (deal.Action !== request.Type || moneyFromDecimal(deal.Profit) !== moneyFromDecimal(request.Balance)) throw operationAlreadyUsed();
    } else {
      const ticket = await wire.apply({
        login: request.Login,
        type: request.Type,
        balance: request.Balance,
        comment: taggedComment(request.Comment, request.RequestId, MAX_TAGGED_COMMENT),
      });
      deal = await this.find(request.Login, tag, wire);
      if (!deal || deal.Deal !== ticket) throw connectorErrors.unreachable("The trading server applied the operation but its deal could not be read back.");
    }
    const account = await wire.account(request.Login);
    return {
      RequestId: request.RequestId,
      Ticket: deal.Deal,
      Login: request.Login,
      Type: request.Type,
      Balance: request.Balance,
      TimeMsc: deal.TimeMsc,
      NewBalance: account.Balance,
      NewCredit: account.Credit,
    };
  }

  private async find(login: string, tag: string, wire: BalanceWire): Promise<Mt5Deal | undefined> {
    const now = wire.now();
    const deals = await wire.deals(login, Math.floor((now - wire.lookback) / 1000), Math.ceil(now / 1000) + 86_400);
    return deals.find((d) => (d.Action === 2 || d.Action === 3) && d.Comment.endsWith(tag));
  }
}
