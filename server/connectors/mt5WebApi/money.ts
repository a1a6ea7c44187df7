/**
 * Exactly-once money over the MT5 Web API, which has no operation id: `/api/trade/balance` moves
 * money every time it is called. So each operation is tagged — the deal's comment ends with
 * ` ~` and ten hex digits of SHA-256(operation id) — and before anything is sent the account's
 * recent deals are searched for that tag. Found: the operation already happened (perhaps its
 * answer was lost with the connection, perhaps in a Toolbox process that has since died), and
 * its result is rebuilt from the deal; not found: it is sent. Operations with the same id run one
 * after the other in this process, and the first result of each id is kept, so retries return it
 * unchanged. The user's comment keeps its first 20 characters (the vendor's limit is 32).
 */
import { createHash } from "node:crypto";
import { moneyFromDecimal } from "../../../core/trading/index.ts";
import { connectorErrors } from "../errors.ts";
import type { Mt5BalanceAnswer, Mt5BalanceRequest, Mt5Deal, Mt5User } from "../mt5/native.ts";

export const MAX_TAGGED_COMMENT = 20;
const REMEMBERED = 10_000;

export function operationTag(operationId: string): string {
  return `~${createHash("sha256").update(operationId).digest("hex").slice(0, 10)}`;
}

export function taggedComment(comment: string, operationId: string): string {
  const kept = comment.slice(0, MAX_TAGGED_COMMENT).trimEnd();
  return kept === "" ? operationTag(operationId) : `${kept} ${operationTag(operationId)}`;
}

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
  private readonly results = new Map<string, { fingerprint: string; answer: Mt5BalanceAnswer }>();
  private readonly queues = new Map<string, Promise<unknown>>();

  run(request: Mt5BalanceRequest, wire: BalanceWire): Promise<Mt5BalanceAnswer> {
    const key = request.RequestId;
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

  private async once(request: Mt5BalanceRequest, wire: BalanceWire): Promise<Mt5BalanceAnswer> {
    const fingerprint = JSON.stringify([request.Login, request.Type, moneyFromDecimal(request.Balance), request.Comment]);
    const known = this.results.get(request.RequestId);
    if (known) {
      if (known.fingerprint !== fingerprint) throw alreadyUsed();
      return structuredClone(known.answer);
    }
    const tag = operationTag(request.RequestId);
    let deal = await this.find(request.Login, tag, wire);
    if (deal) {
      if (deal.Action !== request.Type || moneyFromDecimal(deal.Profit) !== moneyFromDecimal(request.Balance)) throw alreadyUsed();
    } else {
      const ticket = await wire.apply({
        login: request.Login,
        type: request.Type,
        balance: request.Balance,
        comment: taggedComment(request.Comment, request.RequestId),
      });
      deal = await this.find(request.Login, tag, wire);
      if (!deal || deal.Deal !== ticket) throw connectorErrors.unreachable("The trading server applied the operation but its deal could not be read back.");
    }
    const account = await wire.account(request.Login);
    const answer: Mt5BalanceAnswer = {
      RequestId: request.RequestId,
      Ticket: deal.Deal,
      Login: request.Login,
      Type: request.Type,
      Balance: request.Balance,
      TimeMsc: deal.TimeMsc,
      NewBalance: account.Balance,
      NewCredit: account.Credit,
    };
    this.results.set(request.RequestId, { fingerprint, answer: structuredClone(answer) });
    if (this.results.size > REMEMBERED) {
      const oldest = this.results.keys().next().value;
      if (oldest !== undefined) this.results.delete(oldest);
    }
    return answer;
  }

  private async find(login: string, tag: string, wire: BalanceWire): Promise<Mt5Deal | undefined> {
    const now = wire.now();
    const deals = await wire.deals(login, Math.floor((now - wire.lookback) / 1000), Math.ceil(now / 1000) + 86_400);
    return deals.find((d) => (d.Action === 2 || d.Action === 3) && d.Comment.endsWith(tag));
  }
}

function alreadyUsed() {
  return connectorErrors.invalidRequest("This operation id was already used for a different request. Use a new id for a new operation.");
}
