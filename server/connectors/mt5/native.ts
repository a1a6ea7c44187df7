/**
 * What the MT5 Web API speaks (answers arrive as `{"retcode": "0 Done", "answer": …}`; the
 * transport unwraps them). MetaTrader 5 keeps deals, orders and positions with separate 64-bit
 * ids, sent as strings; volume in 1/10000 lots, also a string; money as decimal strings; times in
 * milliseconds of server time; rights as a bit mask. Fields marked "toolbox" are additions the
 * Toolbox MT5 gateway plugin supplies (request ids for exactly-once, currency on the user).
 */
import type { NativeTypes } from "../wire/wire.ts";
import type { Mt5ConPlugin, Mt5PluginUpdate } from "./plugins.ts";

export const MT5_DEAL_ACTION = { buy: 0, sell: 1, balance: 2, credit: 3 } as const;
export const MT5_DEAL_ENTRY = { in: 0, out: 1 } as const;
export const MT5_REASON = {
  client: 0,
  expert: 1,
  dealer: 2,
  sl: 3,
  tp: 4,
  stopOut: 5,
  api: 14,
  mobile: 16,
  web: 17,
} as const;

/** IMTUser rights. */
export const MT5_RIGHT = {
  enabled: 0x1,
  changePassword: 0x2,
  tradeDisabled: 0x4,
  otpEnabled: 0x800,
} as const;

/** IMTAccount.SOActivation. */
export const MT5_ACTIVATION = { ok: 0, marginCall: 1, stopOut: 2 } as const;

/** IMTRequest actions the dealer uses (TA_DEALER_POS_EXECUTE, _ORD_PENDING, _POS_MODIFY, _ORD_MODIFY, _ORD_REMOVE). */
export const MT5_REQUEST_ACTION = { positionExecute: 200, orderPending: 201, positionModify: 202, orderModify: 203, orderRemove: 204 } as const;

/** IMTOrder.Type of the pending orders Toolbox carries (EnOrderType). */
export const MT5_ORDER_TYPE = { buyLimit: 2, sellLimit: 3, buyStop: 4, sellStop: 5 } as const;

/** IMTOrder.TypeTime: good till cancelled, or until TimeExpiration. */
export const MT5_ORDER_TIME = { gtc: 0, specified: 2 } as const;

/** IMTOrder.State (EnOrderState). */
export const MT5_ORDER_STATE = { placed: 1, canceled: 2, filled: 4, expired: 6 } as const;

export const MT5_RETCODE = {
  done: "0 Done",
  error: "2 Common error",
  params: "3 Invalid parameters",
  data: "4 Invalid data",
  network: "7 Network error",
  frequent: "12 Too frequent requests",
  notFound: "13 Not found",
  timeout: "9 Timeout",
  authInvalid: "1002 Invalid account",
  accountDisabled: "1003 Account disabled",
  maxMoney: "4005 Max money",
  reject: "10006 Request rejected",
  invalidVolume: "10014 Invalid volume",
  invalidPrice: "10015 Invalid price",
  invalidStops: "10016 Invalid stops",
  invalidExpiration: "10022 Invalid expiration",
  tradeDisabled: "10017 Trade disabled",
  marketClosed: "10018 Market closed",
  noMoney: "10019 No money",
  priceChanged: "10020 Price changed",
  limitPositions: "10040 Limit positions",
} as const;

export interface Mt5User {
  Login: string;
  Group: string;
  Name: string;
  Email: string;
  Phone: string;
  Country: string;
  City: string;
  Address: string;
  Comment: string;
  /** Seconds of server time. */
  Registration: number;
  /** 0 when never. */
  LastAccess: number;
  Leverage: number;
  /** toolbox */
  Currency: string;
  Balance: string;
  Credit: string;
  Equity: string;
  Margin: string;
  MarginFree: string;
  MarginLevel: string;
  SOActivation: number;
  Rights: number;
  Agent: string;
  LeadSource: string;
}

export interface Mt5NewUser {
  Login: string;
  Group: string;
  Name: string;
  Email: string;
  Phone: string;
  Country: string;
  City: string;
  Address: string;
  Comment: string;
  Leverage: number;
  Rights: number;
  LeadSource: string;
  PassMain: string;
  PassInvestor: string;
}

/** Only the fields to change; rights as bits to set and to clear. */
export type Mt5UserUpdate = Partial<
  Pick<Mt5User, "Group" | "Leverage" | "Name" | "Email" | "Phone" | "Country" | "City" | "Address" | "Comment" | "LeadSource">
> & { RightsSet?: number; RightsClear?: number };

export interface Mt5Group {
  Group: string;
  Currency: string;
  DefaultLeverage: number;
  /** 0 percent, 1 money. */
  MarginSOMode: 0 | 1;
  MarginCall: string;
  MarginStopOut: string;
  /** 0 netting, 2 hedging (MT5's EnMarginMode). */
  MarginMode: 0 | 2;
  HedgeProhibited: 0 | 1;
  FIFOClose: 0 | 1;
  LimitPositions: number;
  SymbolsMask: string;
  CommissionPerLot: string;
}

export interface Mt5Symbol {
  Symbol: string;
  Description: string;
  /** toolbox */
  Class: string;
  Path: string;
  Digits: number;
  ContractSize: number;
  CurrencyBase: string;
  CurrencyProfit: string;
  /** 0 request, 1 instant, 2 market. */
  ExecMode: number;
  /** 0 disabled, 3 close only, 4 full. */
  TradeMode: number;
  Spread: number;
  SpreadBalance: number;
  StopsLevel: number;
  FreezeLevel: number;
  SwapLong: number;
  SwapShort: number;
  VolumeMin: string;
  VolumeMax: string;
  VolumeStep: string;
  MaxLeverage: number;
  MarginInitial: number;
  MarginMaintenance: number;
  MarginHedged: number;
  /** Per weekday, minutes from midnight. */
  SessionsTrade: { Day: number; Open: number; Close: number }[];
}

/** IMTConHoliday: a day in server time, the minutes it still trades (WorkFrom–WorkTo, 0–0: none), symbol masks. */
export interface Mt5Holiday {
  Description: string;
  /** 0 disabled, 1 enabled. */
  Mode: 0 | 1;
  Year: number;
  Month: number;
  Day: number;
  WorkFrom: number;
  WorkTo: number;
  Symbols: string[];
}

export interface Mt5Tick {
  Symbol: string;
  Bid: number;
  Ask: number;
  Datetime_msc: number;
}

export interface Mt5Position {
  Position: string;
  Login: string;
  Symbol: string;
  Action: number;
  TimeCreateMsc: number;
  PriceOpen: number;
  PriceCurrent: number;
  PriceSL: number;
  PriceTP: number;
  Volume: string;
  Profit: string;
  Storage: string;
  Comment: string;
  Reason: number;
}

/** IMTOrder: an open pending order, or one in the history with its final state. */
export interface Mt5Order {
  Order: string;
  Login: string;
  Symbol: string;
  Type: number;
  TypeTime: number;
  /** Seconds of server time; 0 with TypeTime GTC. */
  TimeExpiration: number;
  TimeSetupMsc: number;
  /** The time it filled, was cancelled or expired; 0 while placed. */
  TimeDoneMsc: number;
  State: number;
  PriceOrder: number;
  PriceSL: number;
  PriceTP: number;
  VolumeInitial: string;
  VolumeCurrent: string;
  /** The position it opened (an MT5 position takes the ticket of the order that opened it); "0" until it fills. */
  PositionID: string;
  Comment: string;
  Reason: number;
}

/** A dealer request for a pending order (IMTRequest with Action 201, 203 or 204). */
export interface Mt5PendingRequest extends Mt5DealerRequest {
  /** The order to change or remove; "0" to place one. */
  Order: string;
  TypeTime: number;
  TimeExpiration: number;
}

export interface Mt5Deal {
  Deal: string;
  Order: string;
  /** "0" for balance and credit deals. */
  PositionID: string;
  Login: string;
  Action: number;
  Entry: number;
  Symbol: string;
  Volume: string;
  Price: number;
  Profit: string;
  Commission: string;
  Storage: string;
  Comment: string;
  Reason: number;
  TimeMsc: number;
}

export interface Mt5JournalRecord {
  ID: string;
  TimeMsc: number;
  Level: string;
  IP: string;
  Login: string;
  Message: string;
}

export interface Mt5BalanceRequest {
  /** toolbox */
  RequestId: string;
  Login: string;
  Type: 2 | 3;
  Balance: string;
  Comment: string;
}

export interface Mt5BalanceAnswer {
  RequestId: string;
  Ticket: string;
  Login: string;
  Type: 2 | 3;
  Balance: string;
  TimeMsc: number;
  NewBalance: string;
  NewCredit: string;
}

export interface Mt5DealerRequest {
  /** toolbox: Toolbox's request id (IMTRequest.ID is a number local to the server). */
  RequestId: string;
  Action: number;
  Login: string;
  Symbol: string;
  /** 0 buy, 1 sell. */
  Type: number;
  Volume: string;
  /** "0" opens a new position. */
  Position: string;
  PriceOrder: number;
  /** Points; -1 for "any". */
  PriceDeviation: number;
  PriceSL: number;
  PriceTP: number;
  Comment: string;
  Reason: number;
}

export interface Mt5DealerAnswer {
  RequestId: string;
  Retcode: string;
  /** "0" when the request made no deal. */
  Deal: string;
  Order: string;
  Position: string;
  Price: number;
  Volume: string;
  TimeMsc: number;
}

export type Mt5EventItem =
  | { Type: "DealAdd"; Deal: Mt5Deal }
  | { Type: "PositionAdd" | "PositionUpdate" | "PositionDelete"; Position: Mt5Position }
  | { Type: "UserUpdate"; User: Mt5User }
  /** OrderDelete carries the order's final State (filled, canceled, expired) and, filled, its PositionID. */
  | { Type: "OrderAdd" | "OrderUpdate" | "OrderDelete"; Order: Mt5Order };

export interface Mt5Event {
  TimeMsc: number;
  Items: Mt5EventItem[];
}

export interface Mt5Error {
  retcode: string;
  message: string;
}

export interface Mt5Native extends NativeTypes {
  login: string;
  positionId: string;
  time: number;
  account: Mt5User;
  newAccount: Mt5NewUser;
  accountPatch: Mt5UserUpdate;
  group: Mt5Group;
  symbol: Mt5Symbol;
  quote: Mt5Tick;
  position: Mt5Position;
  history: Mt5Deal;
  journal: Mt5JournalRecord;
  balanceRequest: Mt5BalanceRequest;
  balanceResult: Mt5BalanceAnswer;
  orderRequest: Mt5DealerRequest;
  modifyRequest: Mt5DealerRequest;
  closeRequest: Mt5DealerRequest;
  orderResult: Mt5DealerAnswer;
  pendingOrder: Mt5Order;
  finishedOrder: Mt5Order;
  placePendingRequest: Mt5PendingRequest;
  modifyPendingRequest: Mt5PendingRequest;
  cancelPendingRequest: Mt5PendingRequest;
  pendingResult: Mt5DealerAnswer;
  event: Mt5Event;
  error: Mt5Error;
  plugin: Mt5ConPlugin;
  pluginUpdate: Mt5PluginUpdate;
}
