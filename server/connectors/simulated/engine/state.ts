/**
 * The simulated server's books: accounts, groups, symbols, open positions and history, with
 * lookups that fail the way a platform does (not found, with the name the dealer typed).
 */
import type {
  Deal,
  Group,
  Holiday,
  Money,
  NativeAccountRef,
  FinishedPendingOrder,
  PendingOrder,
  PositionRecord,
  TradePlugin,
  TradeSymbol,
} from "../../../../core/trading/index.ts";
import { connectorErrors } from "../../errors.ts";
import type { ClosedTrade } from "../../wire/codec.ts";

export interface SimAccount {
  login: string;
  loginNumber: number;
  native: NativeAccountRef;
  group: string;
  name: string;
  email: string;
  phone: string;
  country: string;
  city: string;
  address: string;
  comment: string;
  registration: number;
  lastAccess: number | null;
  leverage: number;
  currency: string;
  balance: Money;
  credit: Money;
  enabled: boolean;
  readOnly: boolean;
  changePasswordAllowed: boolean;
  otpEnabled: boolean;
  agentAccount: string | null;
  leadSource: string;
  /** Hashes only; a password is never kept or read back. */
  passwordHash: string | null;
  investorHash: string | null;
  /**
   * Ids of the open positions: NO_POSITIONS (shared) until the first opens, so the 80 % of a large
   * server's accounts that hold none cost no Set each (about 250 bytes: 25 MB at 100,000 accounts,
   * and the garbage collector copies what it holds). Changed only by addPosition/removePosition.
   */
  positions: ReadonlySet<string>;
}

/** The open positions of an account that has none; never changed (see SimAccount.positions). */
export const NO_POSITIONS: ReadonlySet<string> = new Set<string>();

/** A pending order that left the book: how, when, and the position a fill opened. Plain data, like the rest of the state. */
export interface FinishedOrder extends FinishedPendingOrder {
  time: number;
}

export class EngineState {
  readonly accounts = new Map<string, SimAccount>();
  /** Login numbers in ascending order, for paging. */
  readonly logins: number[] = [];
  readonly groups = new Map<string, Group>();
  readonly symbols = new Map<string, TradeSymbol>();
  /** The server's holidays (MetaTrader's; none on Match-Trader), in the order written. */
  holidays: Holiday[] = [];
  readonly positions = new Map<string, PositionRecord>();
  readonly dealsByLogin = new Map<string, Deal[]>();
  readonly closedByLogin = new Map<string, ClosedTrade[]>();
  /** Pending orders waiting to trigger, by id (plain PendingOrder records). */
  readonly orders = new Map<string, PendingOrder>();
  /** Pending orders filled, cancelled or expired, per login, oldest first. */
  readonly finishedOrdersByLogin = new Map<string, FinishedOrder[]>();
  /** Accounts with open positions: the only ones whose equity moves with prices. */
  readonly exposed = new Set<string>();
  /** The server's plugins by id, in the order the server lists them (engine/plugins.ts). */
  readonly plugins = new Map<string, TradePlugin>();
  /** Where the next round of stop-out checks starts on a very large server. */
  stopOutCursor = 0;

  account(login: string): SimAccount {
    const account = this.accounts.get(login);
    if (!account) throw connectorErrors.notFound(`Account ${login} does not exist on this server.`);
    return account;
  }

  group(name: string): Group {
    const group = this.groups.get(name);
    if (!group) throw connectorErrors.notFound(`Group "${name}" does not exist on this server.`);
    return group;
  }

  symbol(name: string): TradeSymbol {
    const symbol = this.symbols.get(name);
    if (!symbol) throw connectorErrors.notFound(`Symbol ${name} does not exist on this server.`);
    return symbol;
  }

  position(id: string): PositionRecord {
    const position = this.positions.get(id);
    if (!position) throw connectorErrors.notFound(`Position #${id} does not exist or is already closed.`);
    return position;
  }

  addAccount(account: SimAccount): void {
    this.accounts.set(account.login, account);
    const at = this.logins.length === 0 || account.loginNumber > (this.logins.at(-1) ?? 0) ? this.logins.length : this.indexAfter(account.loginNumber - 1);
    this.logins.splice(at, 0, account.loginNumber);
  }

  /** Index of the first login greater than `login`. */
  indexAfter(login: number): number {
    let lo = 0;
    let hi = this.logins.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.logins[mid] ?? 0) <= login) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  addPosition(position: PositionRecord): void {
    this.positions.set(position.id, position);
    const account = this.account(position.login);
    // (An empty set is never added to: after a restore, empty sets are copies, maybe shared.)
    if (account.positions.size === 0) account.positions = new Set([position.id]);
    else (account.positions as Set<string>).add(position.id);
    this.exposed.add(position.login);
  }

  removePosition(position: PositionRecord): void {
    this.positions.delete(position.id);
    const account = this.account(position.login);
    if (account.positions !== NO_POSITIONS) (account.positions as Set<string>).delete(position.id);
    if (account.positions.size === 0) {
      account.positions = NO_POSITIONS;
      this.exposed.delete(position.login);
    }
  }

  order(id: string): PendingOrder {
    const order = this.orders.get(id);
    if (!order) throw connectorErrors.notFound(`Pending order #${id} does not exist: it was filled, cancelled or has expired.`);
    return order;
  }

  finishOrder(finished: FinishedOrder): void {
    this.orders.delete(finished.order.id);
    append(this.finishedOrdersByLogin, finished.order.login, finished);
  }

  addDeal(deal: Deal): void {
    append(this.dealsByLogin, deal.login, deal);
  }

  addClosed(trade: ClosedTrade): void {
    append(this.closedByLogin, trade.position.login, trade);
  }
}

function append<T>(map: Map<string, T[]>, key: string, value: T): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}
