/**
 * What the MT4 manager gateway speaks. MetaTrader 4 has no HTTP API from the vendor; Toolbox
 * talks to a gateway that wraps the MT4 Manager API (UserRecordsRequest, TradesRequest,
 * JournalRequest, TradeTransaction) and keeps its structures: integer logins and tickets,
 * volume in lots, `cmd` codes, times in whole seconds of server time, money as doubles, and 0 for
 * "no SL/TP". Fields marked "gateway" are the gateway's additions to the Manager API structs.
 */
import type { NativeTypes } from "../wire/wire.ts";
import type { Mt4ConPluginParam, Mt4PluginUpdate } from "./plugins.ts";

export const MT4_CMD = { buy: 0, sell: 1, buyLimit: 2, sellLimit: 3, buyStop: 4, sellStop: 5, balance: 6, credit: 7 } as const;

/** A market trade (OP_BUY, OP_SELL): what Toolbox shows as a position and its deals. */
export const isMarketTrade = (r: { cmd: number }): boolean => r.cmd === MT4_CMD.buy || r.cmd === MT4_CMD.sell;

/**
 * A pending order (buy/sell limit, buy/sell stop): not a position, and no deal. Its ticket becomes
 * the position's when it activates (docs/connectors.md, "Pending orders").
 */
export const isPendingOrder = (r: { cmd: number }): boolean => r.cmd >= MT4_CMD.buyLimit && r.cmd <= MT4_CMD.sellStop;

/** TradeRecord.reason. */
export const MT4_REASON = { client: 0, expert: 1, dealer: 2, api: 4, mobile: 5, web: 6 } as const;

/** TradeRecord.activation: what closed the trade automatically. */
export const MT4_ACTIVATION = { none: 0, sl: 1, tp: 2, stopOut: 3 } as const;

/** MarginLevel.level_type. */
export const MT4_MARGIN_LEVEL = { ok: 0, marginCall: 1, stopOut: 2 } as const;

/** Manager API return codes (plus the gateway's 404 and 410). */
export const MT4_RET = {
  error: 2,
  invalidData: 3,
  noConnect: 6,
  accountDisabled: 64,
  badAccountInfo: 65,
  tradeTimeout: 128,
  badPrices: 129,
  badStops: 130,
  badVolume: 131,
  marketClosed: 132,
  tradeDisabled: 133,
  noMoney: 134,
  priceChanged: 135,
  brokerBusy: 137,
  expirationDenied: 147,
  tooManyOrders: 148,
  notFound: 404,
  gone: 410,
} as const;

export interface Mt4UserRecord {
  login: number;
  group: string;
  name: string;
  email: string;
  phone: string;
  country: string;
  city: string;
  address: string;
  comment: string;
  regdate: number;
  /** 0 when the account never logged in. */
  lastdate: number;
  leverage: number;
  /** gateway: the group's currency, so a record stands alone. */
  currency: string;
  balance: number;
  credit: number;
  equity: number;
  margin: number;
  margin_free: number;
  /** 0 while no margin is used. */
  margin_level: number;
  level_type: number;
  enable: 0 | 1;
  enable_read_only: 0 | 1;
  enable_change_password: 0 | 1;
  enable_otp: 0 | 1;
  /** 0 for none. */
  agent_account: number;
  lead_source: string;
}

export interface Mt4NewUser {
  /** 0 lets the server pick. */
  login: number;
  group: string;
  name: string;
  email: string;
  phone: string;
  country: string;
  city: string;
  address: string;
  comment: string;
  /** 0 takes the group's default. */
  leverage: number;
  enable: 0 | 1;
  enable_read_only: 0 | 1;
  lead_source: string;
  password: string;
  password_investor: string;
}

export type Mt4UserPatch = Partial<
  Pick<
    Mt4UserRecord,
    | "group"
    | "leverage"
    | "name"
    | "email"
    | "phone"
    | "country"
    | "city"
    | "address"
    | "comment"
    | "enable"
    | "enable_read_only"
    | "enable_change_password"
    | "enable_otp"
    | "lead_source"
  >
>;

export interface Mt4Group {
  group: string;
  currency: string;
  default_leverage: number;
  /** 0 percent, 1 money. */
  margin_type: 0 | 1;
  margin_call: number;
  margin_stopout: number;
  /** gateway: MT4 groups are always hedging; kept for symmetry with MT5. */
  margin_mode: 0 | 1;
  hedge_prohibited: 0 | 1;
  close_fifo: 0 | 1;
  maxpositions: number;
  symbols_mask: string;
  /** Commission per lot in the group currency (ConGroupSec.comm_base). */
  commission: number;
}

export interface Mt4Session {
  day: number;
  open: number;
  close: number;
}

export interface Mt4Symbol {
  symbol: string;
  description: string;
  /** gateway: the symbol's class, as the broker's security groups do not say it. */
  type: string;
  path: string;
  digits: number;
  contract_size: number;
  currency: string;
  profit_currency: string;
  /** 0 request, 1 instant, 2 market. */
  exemode: 0 | 1 | 2;
  /** 0 disabled, 1 close only, 2 full. */
  trade: 0 | 1 | 2;
  spread: number;
  spread_balance: number;
  stops_level: number;
  freeze_level: number;
  swap_long: number;
  swap_short: number;
  lot_min: number;
  lot_max: number;
  lot_step: number;
  /** 0 for none. */
  max_leverage: number;
  margin_initial: number;
  margin_maintenance: number;
  margin_hedged: number;
  sessions: Mt4Session[];
}

/** ConHoliday: a day in server time, the minutes it still trades (0–0: none), a symbol or symbol-group mask. */
export interface Mt4Holiday {
  year: number;
  month: number;
  day: number;
  from: number;
  to: number;
  symbol: string;
  description: string;
  enable: 0 | 1;
}

export interface Mt4Quote {
  symbol: string;
  bid: number;
  ask: number;
  time: number;
}

/** An MT4 trade: open (close_time 0, close_price = current price) or closed; or a balance/credit record (cmd 6/7). */
export interface Mt4TradeRecord {
  order: number;
  login: number;
  symbol: string;
  cmd: number;
  volume: number;
  open_time: number;
  open_price: number;
  close_time: number;
  close_price: number;
  sl: number;
  tp: number;
  commission: number;
  storage: number;
  profit: number;
  magic: number;
  /** "from #123" / "to #124" when a partial close re-issued the ticket. */
  comment: string;
  reason: number;
  activation: number;
  /** gateway: reason of a manual close (activation says SL/TP/stop out). */
  close_reason: number;
  /** A pending order's expiration, server-time seconds; 0: none. */
  expiration: number;
}

export interface Mt4JournalRecord {
  time: number;
  /** gateway: sequence in the server's log. */
  id: number;
  level: string;
  ip: string;
  login: number;
  message: string;
}

export interface Mt4BalanceRequest {
  request_id: string;
  login: number;
  cmd: 6 | 7;
  /** Signed: negative for a withdrawal or credit out. */
  amount: number;
  comment: string;
}

export interface Mt4BalanceResult {
  request_id: string;
  order: number;
  login: number;
  cmd: 6 | 7;
  amount: number;
  time: number;
  balance: number;
  credit: number;
}

export interface Mt4TradeTransaction {
  request_id: string;
  /** TT_BR_ORDER_OPEN, TT_BR_ORDER_MODIFY, TT_BR_ORDER_CLOSE. */
  type: "open" | "modify" | "close";
  login: number;
  order: number;
  symbol: string;
  cmd: number;
  volume: number;
  price: number;
  deviation: number;
  sl: number;
  tp: number;
  comment: string;
  reason: number;
}

/**
 * TT_BR_ORDER_OPEN with cmd 2–5 places a pending order at `price`; TT_BR_ORDER_MODIFY moves its
 * price, stops and expiration; TT_BR_ORDER_DELETE removes it.
 */
export interface Mt4PendingTransaction extends Omit<Mt4TradeTransaction, "type"> {
  type: "open" | "modify" | "delete";
  /** Server-time seconds; 0: good till cancelled. */
  expiration: number;
}

export interface Mt4PendingResult extends Omit<Mt4TransactionResult, "type"> {
  type: "open" | "modify" | "delete";
}

export interface Mt4TransactionResult {
  request_id: string;
  type: "open" | "modify" | "close";
  order: number;
  price: number;
  volume: number;
  time: number;
}

/**
 * Pumping: a trade added, updated or closed, or a user record updated. A pending order is a trade
 * record with cmd 2–5: added when placed, updated when changed, closed when deleted or expired;
 * when it activates, its closing and the market trade under the same ticket come in one event.
 */
export type Mt4Pump =
  { type: "trade"; transaction: "add" | "update" | "close"; trade: Mt4TradeRecord } | { type: "user"; transaction: "update"; user: Mt4UserRecord };

export interface Mt4Event {
  time: number;
  pumps: Mt4Pump[];
}

export interface Mt4Error {
  code: number;
  message: string;
}

export interface Mt4Native extends NativeTypes {
  login: number;
  positionId: number;
  time: number;
  account: Mt4UserRecord;
  newAccount: Mt4NewUser;
  accountPatch: Mt4UserPatch;
  group: Mt4Group;
  symbol: Mt4Symbol;
  quote: Mt4Quote;
  position: Mt4TradeRecord;
  history: Mt4TradeRecord;
  journal: Mt4JournalRecord;
  balanceRequest: Mt4BalanceRequest;
  balanceResult: Mt4BalanceResult;
  orderRequest: Mt4TradeTransaction;
  modifyRequest: Mt4TradeTransaction;
  closeRequest: Mt4TradeTransaction;
  orderResult: Mt4TransactionResult;
  pendingOrder: Mt4TradeRecord;
  /** A deleted or expired order's record, closed (close_time) when it left; a filled one is the market trade under its ticket. */
  finishedOrder: Mt4TradeRecord;
  placePendingRequest: Mt4PendingTransaction;
  modifyPendingRequest: Mt4PendingTransaction;
  cancelPendingRequest: Mt4PendingTransaction;
  pendingResult: Mt4PendingResult;
  event: Mt4Event;
  error: Mt4Error;
  plugin: Mt4ConPluginParam;
  pluginUpdate: Mt4PluginUpdate;
}
