/**
 * A platform codec: the thin per-platform adapter. It knows the platform's identifiers, units,
 * time format and codes, and nothing else. `decode` is what a connector uses on answers; `encode`
 * is what a server (the simulated one, or a protocol test server) uses to speak the platform.
 * Every pair round-trips (tests/server/connectors/codecs.test.ts).
 */
import type {
  Account,
  AccountPatch,
  BalanceOperationRequest,
  BalanceOperationResult,
  CancelPendingOrderRequest,
  ClosedPositionRecord,
  ClosePositionRequest,
  Deal,
  FinishedPendingOrder,
  Group,
  Holiday,
  JournalEntry,
  ModifyPendingOrderRequest,
  ModifyPositionRequest,
  NewAccount,
  OrderRequest,
  OrderResult,
  PendingOrder,
  PendingOrderResult,
  PlacePendingOrderRequest,
  Position,
  PositionRecord,
  Quote,
  Timestamp,
  TradePlatformType,
  TradePlugin,
  TradeSymbol,
  UnsequencedTradeEvent,
} from "../../../core/trading/index.ts";
import type { ConnectorError } from "../errors.ts";
import type { NativeTypes } from "./wire.ts";

export interface Codec<Value, Native, Decoded = Value> {
  encode(value: Value): Native;
  decode(native: Native): Decoded;
}

/** A position closed in full or in part, with the deal that closed it. */
export interface ClosedTrade {
  position: ClosedPositionRecord;
  exit: Deal;
}

/** What a server holds as history; each platform shows the part it knows (MT5 deals, MT4 and Match-Trader closed trades and money records). */
export interface HistorySlice {
  deals: Deal[];
  closed: ClosedTrade[];
}

/** A trade event as a server records it: positions carry their commission share. */
export type RecordedTradeEvent =
  | Exclude<UnsequencedTradeEvent, { type: "positionOpened" | "positionModified" | "positionClosed" | "orderFilled" }>
  | (Omit<Extract<UnsequencedTradeEvent, { type: "positionOpened" }>, "position"> & { position: PositionRecord })
  | (Omit<Extract<UnsequencedTradeEvent, { type: "positionModified" }>, "position"> & {
      position: PositionRecord;
      /** With a partial close: the part that was closed, for platforms that report it as a record. */
      closedPart?: ClosedPositionRecord;
    })
  | (Omit<Extract<UnsequencedTradeEvent, { type: "positionClosed" }>, "position"> & { position: ClosedPositionRecord })
  | (Omit<Extract<UnsequencedTradeEvent, { type: "orderFilled" }>, "position"> & { position: PositionRecord });

export interface PlatformCodec<N extends NativeTypes> {
  platform: TradePlatformType;
  login: Codec<string, N["login"]>;
  positionId: Codec<string, N["positionId"]>;
  time: Codec<Timestamp, N["time"]>;
  account: Codec<Account, N["account"]>;
  newAccount: Codec<NewAccount, N["newAccount"]>;
  accountPatch: Codec<AccountPatch, N["accountPatch"]>;
  group: Codec<Group, N["group"]>;
  symbol: Codec<TradeSymbol, N["symbol"]>;
  /** MetaTrader's holidays (ConHoliday, IMTConHoliday); absent where the platform has none (Match-Trader). */
  holiday?: Codec<Holiday, object>;
  quote: Codec<Quote, N["quote"]>;
  position: Codec<PositionRecord, N["position"], Position>;
  /** History records, decoded with the open positions (MT4 and Match-Trader rebuild entry deals from both). */
  history: {
    /** Whether decode needs the account's open positions too (to rebuild entry deals). */
    withOpenPositions: boolean;
    encode(slice: HistorySlice): N["history"][];
    decode(records: N["history"][], open: N["position"][]): Deal[];
  };
  journal: Codec<JournalEntry, N["journal"]>;
  balanceRequest: Codec<BalanceOperationRequest, N["balanceRequest"]>;
  balanceResult: Codec<BalanceOperationResult, N["balanceResult"]>;
  orderRequest: Codec<OrderRequest, N["orderRequest"]>;
  modifyRequest: Codec<ModifyPositionRequest, N["modifyRequest"]>;
  closeRequest: Codec<ClosePositionRequest, N["closeRequest"]>;
  orderResult: Codec<OrderResult, N["orderResult"]>;
  /** Pending orders (core/trading/pendingOrder.ts) in the platform's shape. */
  pendingOrder: Codec<PendingOrder, N["pendingOrder"]>;
  /** A pending order that left the book, as the platform's order history lists it. */
  finishedOrder: Codec<FinishedPendingOrder, N["finishedOrder"]>;
  placePendingRequest: Codec<PlacePendingOrderRequest, N["placePendingRequest"]>;
  modifyPendingRequest: Codec<ModifyPendingOrderRequest, N["modifyPendingRequest"]>;
  cancelPendingRequest: Codec<CancelPendingOrderRequest, N["cancelPendingRequest"]>;
  pendingResult: Codec<PendingOrderResult, N["pendingResult"]>;
  /** One server transaction (e.g. a position opened and its entry deal) to one native event and back. */
  event: Codec<RecordedTradeEvent[], N["event"], UnsequencedTradeEvent[]>;
  error: Codec<ConnectorError, N["error"]>;
  /** Server plugins in the platform's shape; absent on a platform that has none (Match-Trader). */
  plugin?: Codec<TradePlugin, N["plugin"]>;
  /** The plugin as it should become (enabled flag, parameters) in the platform's update shape. */
  pluginUpdate?: Codec<TradePlugin, N["pluginUpdate"]>;
}
