/**
 * What the Match-Trader Broker API speaks: JSON with camelCase fields, UUIDs for trading
 * accounts, offers, positions and ledgers, logins as strings, times as RFC 3339 strings in UTC,
 * money as decimal strings, volume in lots. Trading accounts belong to an offer, which names the
 * group and branch. Fields marked "toolbox" are not part of the vendor's API and are supplied by
 * Toolbox's own adapter (request ids for exactly-once).
 */
import type { NativeTypes } from "../wire/wire.ts";

export type MtReason = "CLIENT" | "MOBILE" | "WEB" | "EXPERT" | "DEALER" | "API" | "STOP_LOSS" | "TAKE_PROFIT" | "STOP_OUT";
export type MtSide = "BUY" | "SELL";
export type MtLedgerType = "DEPOSIT" | "WITHDRAWAL" | "CREDIT_IN" | "CREDIT_OUT";

export interface MtTradingAccount {
  uuid: string;
  login: string;
  offerUuid: string;
  group: string;
  created: string;
  lastLogin: string | null;
  leverage: number;
  currency: string;
  balance: string;
  credit: string;
  equity: string;
  margin: string;
  freeMargin: string;
  marginLevel: string | null;
  marginStatus: "OK" | "MARGIN_CALL" | "STOP_OUT";
  accessRights: { login: boolean; trading: boolean; changePassword: boolean };
  twoFactorEnabled: boolean;
  personalDetails: { name: string; email: string; phone: string; country: string; city: string; address: string };
  comment: string;
  ibLogin: string | null;
  leadSource: string;
}

export interface MtNewTradingAccount {
  login: string | null;
  group: string;
  personalDetails: MtTradingAccount["personalDetails"];
  comment: string;
  leverage: number | null;
  accessRights: { login: boolean; trading: boolean };
  leadSource: string;
  password: string;
  investorPassword: string | null;
}

export interface MtTradingAccountUpdate {
  group?: string;
  leverage?: number;
  personalDetails?: Partial<MtTradingAccount["personalDetails"]>;
  comment?: string;
  accessRights?: Partial<MtTradingAccount["accessRights"]>;
  twoFactorEnabled?: false;
  leadSource?: string;
}

export interface MtGroup {
  name: string;
  offerUuid: string;
  branch: string;
  currency: string;
  defaultLeverage: number;
  marginCallMode: "PERCENT" | "MONEY";
  marginCall: string;
  stopOut: string;
  accountingMode: "HEDGING" | "NETTING";
  hedgingProhibited: boolean;
  fifo: boolean;
  maxPositions: number;
  instruments: string;
  commissionPerLot: string;
}

export interface MtInstrument {
  symbol: string;
  description: string;
  type: "FOREX" | "METAL" | "INDEX" | "CRYPTO";
  path: string;
  pricePrecision: number;
  contractSize: number;
  baseCurrency: string;
  quoteCurrency: string;
  executionMode: "REQUEST" | "INSTANT" | "MARKET";
  tradingMode: "FULL" | "CLOSE_ONLY" | "DISABLED";
  spread: number;
  stopsLevel: number;
  freezeLevel: number;
  swapLong: number;
  swapShort: number;
  minVolume: number;
  maxVolume: number;
  volumeStep: number;
  maxLeverage: number | null;
  sessions: { dayOfWeek: number; openMinute: number; closeMinute: number }[];
}

export interface MtQuote {
  symbol: string;
  bid: number;
  ask: number;
  timestamp: string;
}

export interface MtPosition {
  id: string;
  login: string;
  instrument: string;
  side: MtSide;
  volume: number;
  openPrice: number;
  currentPrice: number;
  stopLoss: number | null;
  takeProfit: number | null;
  profit: string;
  swap: string;
  commission: string;
  comment: string;
  reason: MtReason;
  openTime: string;
  /** Toolbox's own, never on the wire: the tag of the request that opened it, from the connector's order journal. */
  tag?: string;
}

/** A position, or part of one, that was closed. `id` names this closing; `positionId` the position. */
export interface MtClosedPosition extends Omit<MtPosition, "currentPrice"> {
  kind: "CLOSED_POSITION";
  positionId: string;
  closePrice: number;
  closeTime: string;
  closeReason: MtReason;
}

export interface MtLedger {
  kind: "LEDGER";
  id: string;
  login: string;
  type: MtLedgerType;
  amount: string;
  comment: string;
  reason: MtReason;
  time: string;
}

export interface MtJournalEntry {
  id: string;
  timestamp: string;
  level: "OK" | "TRADE" | "LOGIN" | "WARNING" | "ERROR" | "ATTENTION";
  ip: string | null;
  login: string | null;
  message: string;
}

export interface MtLedgerRequest {
  /** toolbox */
  requestId: string;
  login: string;
  type: MtLedgerType;
  amount: string;
  comment: string;
}

export interface MtLedgerResult extends MtLedgerRequest {
  ledgerId: string;
  time: string;
  balance: string;
  credit: string;
}

export interface MtOpenPositionRequest {
  requestId: string;
  login: string;
  instrument: string;
  side: MtSide;
  volume: number;
  stopLoss: number | null;
  takeProfit: number | null;
  expectedPrice: number | null;
  slippage: number | null;
  comment: string;
  reason: MtReason;
}

export interface MtEditPositionRequest {
  requestId: string;
  positionId: string;
  stopLoss: number | null;
  takeProfit: number | null;
}

export interface MtClosePositionRequest {
  requestId: string;
  positionId: string;
  /** null closes it all. */
  volume: number | null;
  comment: string;
  reason: MtReason;
}

export interface MtOperationResult {
  requestId: string;
  operation: "OPEN" | "EDIT" | "CLOSE";
  positionId: string;
  /** The closing's id, for CLOSE. */
  closeId: string | null;
  price: number;
  volume: number;
  time: string;
}

/** A pending order (the active-orders list): `price` is where it activates; `type` LIMIT or STOP with the side. */
export interface MtPendingOrder {
  id: string;
  login: string;
  instrument: string;
  side: MtSide;
  type: "LIMIT" | "STOP";
  price: number;
  volume: number;
  stopLoss: number | null;
  takeProfit: number | null;
  /** RFC 3339; null: good till cancelled. */
  expiration: string | null;
  comment: string;
  reason: MtReason;
  createdTime: string;
  /** Toolbox's own, never on the wire: the tag of the request that placed it, from the connector's order journal. */
  tag?: string;
}

export interface MtPendingOrderRequest {
  requestId: string;
  login: string;
  instrument: string;
  side: MtSide;
  type: "LIMIT" | "STOP";
  price: number;
  volume: number;
  stopLoss: number | null;
  takeProfit: number | null;
  expiration: string | null;
  comment: string;
  reason: MtReason;
}

export interface MtEditOrderRequest {
  requestId: string;
  orderId: string;
  price: number;
  stopLoss: number | null;
  takeProfit: number | null;
  expiration: string | null;
}

export interface MtCancelOrderRequest {
  requestId: string;
  orderId: string;
}

export interface MtOrderResult {
  requestId: string;
  operation: "CREATE_ORDER" | "EDIT_ORDER" | "CANCEL_ORDER";
  orderId: string;
  price: number;
  volume: number;
  time: string;
}

export type MtEvent =
  | { type: "POSITION_OPENED"; timestamp: string; position: MtPosition }
  | { type: "POSITION_UPDATED"; timestamp: string; position: MtPosition }
  | { type: "POSITION_PARTIALLY_CLOSED"; timestamp: string; position: MtPosition; closed: MtClosedPosition }
  | { type: "POSITION_CLOSED"; timestamp: string; closed: MtClosedPosition }
  | { type: "LEDGER_ADDED"; timestamp: string; ledger: MtLedger }
  | { type: "ACCOUNT_UPDATED"; timestamp: string; account: MtTradingAccount }
  | { type: "ORDER_CREATED" | "ORDER_UPDATED"; timestamp: string; order: MtPendingOrder }
  | { type: "ORDER_CANCELLED"; timestamp: string; order: MtPendingOrder; expired: boolean }
  /** The position it opened comes as POSITION_OPENED in the same batch. */
  | { type: "ORDER_FILLED"; timestamp: string; order: MtPendingOrder; positionId: string };

/** A pending order that left the book; an expiry is a cancellation to the vendor (`expired` is the simulated server's own). */
export interface MtFinishedOrder extends MtPendingOrder {
  status: "FILLED" | "CANCELLED";
  expired?: boolean;
  /** RFC 3339; null where the vendor's history does not say. */
  closedTime: string | null;
  /** The position a fill opened (the vendor's `closingOrderId`). */
  positionId: string | null;
}

export interface MtError {
  status: number;
  errorCode: string;
  message: string;
}

export interface MatchTraderNative extends NativeTypes {
  login: string;
  positionId: string;
  time: string;
  account: MtTradingAccount;
  newAccount: MtNewTradingAccount;
  accountPatch: MtTradingAccountUpdate;
  group: MtGroup;
  symbol: MtInstrument;
  quote: MtQuote;
  position: MtPosition;
  history: MtClosedPosition | MtLedger;
  journal: MtJournalEntry;
  balanceRequest: MtLedgerRequest;
  balanceResult: MtLedgerResult;
  orderRequest: MtOpenPositionRequest;
  modifyRequest: MtEditPositionRequest;
  closeRequest: MtClosePositionRequest;
  orderResult: MtOperationResult;
  pendingOrder: MtPendingOrder;
  finishedOrder: MtFinishedOrder;
  placePendingRequest: MtPendingOrderRequest;
  modifyPendingRequest: MtEditOrderRequest;
  cancelPendingRequest: MtCancelOrderRequest;
  pendingResult: MtOrderResult;
  event: MtEvent[];
  error: MtError;
  /** Match-Trader has no server plugins (docs/connectors.md, "Plugins"). */
  plugin: never;
  pluginUpdate: never;
}
