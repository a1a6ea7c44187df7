/**
 * Exactly-once money over the MT4 gateway. MT4 has no operation id: TradeTransaction with
 * TT_BR_BALANCE moves money every time it is called. So each operation is tagged — the balance
 * record's comment ends with ` ~` and ten hex digits of SHA-256(operation id), the same tag as on
 * the MT5 Web API (mt5WebApi/money.ts) — and before anything is sent the account's history
 * (TradesUserHistory) is searched for that tag. Found: the operation already happened (perhaps
 * its answer was lost with the connection, perhaps in a Toolbox process that has since died) and
 * its result is rebuilt from the record; not found: it is sent. Operations with the same id run
 * one after the other in this process, and the first result of each id is kept. MT4 comments
 * hold 31 characters: the user's comment keeps its first 19.
 */
import { connectorErrors } from "../errors.ts";
import { operationTag } from "../mt5WebApi/money.ts";
import { MT4_CMD, type Mt4BalanceRequest, type Mt4BalanceResult, type Mt4TradeRecord, type Mt4UserRecord } from "../mt4/native.ts";

export const MT4_MAX_TAGGED_COMMENT = 19;
const REMEMBERED = 10_000;

export function mt4TaggedComment(comment: string, operationId: string): string {
  const kept = comment.slice(0, MT4_MAX_TAGGED_COMMENT).trimEnd();
  return kept === "" ? operationTag(operationId) : `${kept} ${operationTag(operationId)}`;
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
  private readonly results = new Map<string, { fingerprint: string; answer: Mt4BalanceResult }>();
  private readonly queues = new Map<string, Promise<unknown>>();

  run(request: Mt4BalanceRequest, wire: Mt4BalanceWire): Promise<Mt4BalanceResult> {
    const key = request.request_id;
    const previous = this.queues.get(key) ?? Promise.resolve();
    const run = previous.then(
      () => this.once(request, wire),
      () => this.once(request, wire),
    );
    const tail = run.catch(() => undefined);
    this.queues.set(key, tail);
    void tail.then(() => {
      if (this.queues.get(key) === tail) this.queues.delete(key);
    });
    return run;
  }

  private async once(request: Mt4BalanceRequest, wire: Mt4BalanceWire): Promise<Mt4BalanceResult> {
    const fingerprint = JSON.stringify([request.login, request.cmd, cents(request.amount), request.comment]);
    const known = this.results.get(request.request_id);
    if (known) {
      if (known.fingerprint !== fingerprint) throw alreadyUsed();
      return structuredClone(known.answer);
    }
    const tag = operationTag(request.request_id);
    let record = await this.find(request.login, tag, wire);
    if (record) {
      if (record.cmd !== request.cmd || cents(record.profit) !== cents(request.amount)) throw alreadyUsed();
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
    const answer: Mt4BalanceResult = {
      request_id: request.request_id,
      order: record.order,
      login: request.login,
      cmd: request.cmd,
      amount: request.amount,
      time: record.open_time,
      balance: account.balance,
      credit: account.credit,
    };
    this.results.set(request.request_id, { fingerprint, answer: structuredClone(answer) });
    if (this.results.size > REMEMBERED) {
      const oldest = this.results.keys().next().value;
      if (oldest !== undefined) this.results.delete(oldest);
    }
    return answer;
  }

  private async find(login: number, tag: string, wire: Mt4BalanceWire): Promise<Mt4TradeRecord | undefined> {
    const now = wire.nowSeconds();
    const records = await wire.history(login, now - wire.lookbackSeconds, now + 86_400);
    return records.find((r) => (r.cmd === MT4_CMD.balance || r.cmd === MT4_CMD.credit) && r.comment.endsWith(tag));
  }
}

const cents = (amount: number) => Math.round(amount * 100);

function alreadyUsed() {
  return connectorErrors.invalidRequest("This operation id was already used for a different request. Use a new id for a new operation.");
}
