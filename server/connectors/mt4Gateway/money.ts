/**
 * Exactly-once money over the MT4 gateway. MT4 has no operation id: TradeTransaction with
 * TT_BR_BALANCE moves money every time it is called. So each operation is tagged in the balance
 * record's comment, with the same tag as on the MT5 Web API (server/connectors/operationOnce.ts),
 * and before anything is sent the account's history (TradesUserHistory) is searched for it.
 * Found: the operation already happened and its result is rebuilt from the record; not found: it
 * is sent. MT4 comments hold 31 characters: the user's comment keeps its first 19.
 */
import { connectorErrors } from "../errors.ts";
import { OncePerOperation, operationAlreadyUsed, operationTag, taggedComment } from "../operationOnce.ts";
import { MT4_CMD, type Mt4BalanceRequest, type Mt4BalanceResult, type Mt4TradeRecord, type Mt4UserRecord } from "../mt4/native.ts";

export const MT4_MAX_TAGGED_COMMENT = 19;

export function mt4TaggedComment(comment: string, operationId: string): string {
  return taggedComment(comment, operationId, MT4_MAX_TAGGED_COMMENT);
}

export interface Mt4BalanceWire {
  /** Server time now, in seconds. */
  nowSeconds(): number;
  lookbackSeconds: number;
  /** TradesUserHistory: records of a login within [from, to], seconds of server time; comments as stored. */
  history(login: number, from: number, to: number): Promise<Mt4TradeRecord[]>;
  /** TradeTransaction TT_BR_BALANCE; resolves with the new ticket. */
  apply(params: { cmd: 6 | 7; login: number; amount: number; comment: string }): Promise<number>;
  account(login: number): Promise<Mt4UserRecord>;
}

export class Mt4BalanceOnce {
  private readonly once = new OncePerOperation<Mt4BalanceResult>();

  run(request: Mt4BalanceRequest, wire: Mt4BalanceWire): Promise<Mt4BalanceResult> {
    const fingerprint = JSON.stringify([request.login, request.cmd, cents(request.amount), request.comment]);
    return this.once.run(request.request_id, fingerprint, () => this.perform(request, wire));
  }

  private async perform(request: Mt4BalanceRequest, wire: Mt4BalanceWire): Promise<Mt4BalanceResult> {
    const tag = operationTag(request.request_id);
    let record = await this.find(request.login, tag, wire);
    if (record) {
      if (record.cmd !== request.cmd || cents(record.profit) !== cents(request.amount)) throw operationAlreadyUsed();
    } else {
      const ticket = await wire.apply({
        cmd: request.cmd,
        login: request.login,
        amount: request.amount,
        comment: mt4TaggedComment(request.comment, request.request_id),
      });
      record = await this.find(request.login, tag, wire);
      if (!record || record.order !== ticket)
        throw connectorErrors.unreachable("The trading server applied the operation but its record could not be read back.");
    }
    const account = await wire.account(request.login);
    return {
      request_id: request.request_id,
      order: record.order,
      login: request.login,
      cmd: request.cmd,
      amount: request.amount,
      time: record.open_time,
      balance: account.balance,
      credit: account.credit,
    };
  }

  private async find(login: number, tag: string, wire: Mt4BalanceWire): Promise<Mt4TradeRecord | undefined> {
    const now = wire.nowSeconds();
    const records = await wire.history(login, now - wire.lookbackSeconds, now + 86_400);
    return records.find((r) => (r.cmd === MT4_CMD.balance || r.cmd === MT4_CMD.credit) && r.comment.endsWith(tag));
  }
}

const cents = (amount: number) => Math.round(amount * 100);
