/**
 * The gRPC live feed shared by the Match-Trader protocol server and the connector: the service
 * definition loaded from brokerFeed.proto, and the conversion between the native events
 * (server/connectors/matchTrader/native.ts) and their protobuf messages. Protobuf has no null:
 * an absent optional field is null here, and defaults (empty string, 0, false) are filled in.
 */
import * as grpc from "@grpc/grpc-js";
import * as protoLoader from "@grpc/proto-loader";
import { fileURLToPath } from "node:url";
import type { MtClosedPosition, MtEvent, MtLedger, MtPendingOrder, MtPosition, MtTradingAccount } from "../matchTrader/native.ts";

const PROTO = fileURLToPath(new URL("./brokerFeed.proto", import.meta.url));

const definition = protoLoader.loadSync(PROTO, { keepCase: true, longs: Number, enums: String, defaults: false, oneofs: false });
const loaded = grpc.loadPackageDefinition(definition) as unknown as {
  com: { matchtrade: { broker_api: { grpc: { TradingFeedServiceExternal: grpc.ServiceClientConstructor } } } };
};

export const TradingFeedService = loaded.com.matchtrade.broker_api.grpc.TradingFeedServiceExternal;

export interface FeedMessage {
  sequence: number;
  events: MtEvent[];
}

export interface FeedBatch {
  messages: FeedMessage[];
  complete: boolean;
  latestSequence: number;
}

type Pb = Record<string, unknown>;

/** Drops nulls (protobuf's "absent") from a native object, one level deep plus nested objects. */
function toPb(value: object): Pb {
  const out: Pb = {};
  for (const [key, field] of Object.entries(value)) {
    if (field === null || field === undefined) continue;
    out[key] = typeof field === "object" && !Array.isArray(field) ? toPb(field as object) : field;
  }
  return out;
}

const str = (v: unknown) => (typeof v === "string" ? v : "");
const num = (v: unknown) => (typeof v === "number" ? v : 0);
const opt = <T>(v: T | undefined): T | null => (v === undefined ? null : v);

function position(p: Pb): MtPosition {
  return {
    id: str(p.id),
    login: str(p.login),
    instrument: str(p.instrument),
    side: str(p.side) as MtPosition["side"],
    volume: num(p.volume),
    openPrice: num(p.openPrice),
    currentPrice: num(p.currentPrice),
    stopLoss: opt(p.stopLoss as number | undefined),
    takeProfit: opt(p.takeProfit as number | undefined),
    profit: str(p.profit),
    swap: str(p.swap),
    commission: str(p.commission),
    comment: str(p.comment),
    reason: str(p.reason) as MtPosition["reason"],
    openTime: str(p.openTime),
  };
}

function closed(c: Pb): MtClosedPosition {
  const { currentPrice: _unused, ...base } = position({ ...c, currentPrice: 0 });
  return {
    ...base,
    kind: "CLOSED_POSITION",
    positionId: str(c.positionId),
    closePrice: num(c.closePrice),
    closeTime: str(c.closeTime),
    closeReason: str(c.closeReason) as MtClosedPosition["closeReason"],
  };
}

function pendingOrder(o: Pb): MtPendingOrder {
  return {
    id: str(o.id),
    login: str(o.login),
    instrument: str(o.instrument),
    side: str(o.side) as MtPendingOrder["side"],
    type: str(o.type) as MtPendingOrder["type"],
    price: num(o.price),
    volume: num(o.volume),
    stopLoss: opt(o.stopLoss as number | undefined),
    takeProfit: opt(o.takeProfit as number | undefined),
    expiration: opt(o.expiration as string | undefined),
    comment: str(o.comment),
    reason: str(o.reason) as MtPendingOrder["reason"],
    createdTime: str(o.createdTime),
  };
}

function ledger(l: Pb): MtLedger {
  return {
    kind: "LEDGER",
    id: str(l.id),
    login: str(l.login),
    type: str(l.type) as MtLedger["type"],
    amount: str(l.amount),
    comment: str(l.comment),
    reason: str(l.reason) as MtLedger["reason"],
    time: str(l.time),
  };
}

function account(a: Pb): MtTradingAccount {
  const rights = (a.accessRights ?? {}) as Pb;
  const details = (a.personalDetails ?? {}) as Pb;
  return {
    uuid: str(a.uuid),
    login: str(a.login),
    offerUuid: str(a.offerUuid),
    group: str(a.group),
    created: str(a.created),
    lastLogin: opt(a.lastLogin as string | undefined),
    leverage: num(a.leverage),
    currency: str(a.currency),
    balance: str(a.balance),
    credit: str(a.credit),
    equity: str(a.equity),
    margin: str(a.margin),
    freeMargin: str(a.freeMargin),
    marginLevel: opt(a.marginLevel as string | undefined),
    marginStatus: str(a.marginStatus) as MtTradingAccount["marginStatus"],
    accessRights: { login: rights.login === true, trading: rights.trading === true, changePassword: rights.changePassword === true },
    twoFactorEnabled: a.twoFactorEnabled === true,
    personalDetails: {
      name: str(details.name),
      email: str(details.email),
      phone: str(details.phone),
      country: str(details.country),
      city: str(details.city),
      address: str(details.address),
    },
    comment: str(a.comment),
    ibLogin: opt(a.ibLogin as string | undefined),
    leadSource: str(a.leadSource),
  };
}

export function eventToPb(event: MtEvent): Pb {
  return toPb(event);
}

export function eventFromPb(e: Pb): MtEvent {
  const timestamp = str(e.timestamp);
  const part = (name: string) => {
    const value = e[name];
    if (!value || typeof value !== "object") throw new Error(`A ${str(e.type)} feed event without its ${name}`);
    return value as Pb;
  };
  switch (e.type) {
    case "POSITION_OPENED":
    case "POSITION_UPDATED":
      return { type: e.type, timestamp, position: position(part("position")) };
    case "POSITION_PARTIALLY_CLOSED":
      return { type: e.type, timestamp, position: position(part("position")), closed: closed(part("closed")) };
    case "POSITION_CLOSED":
      return { type: e.type, timestamp, closed: closed(part("closed")) };
    case "LEDGER_ADDED":
      return { type: e.type, timestamp, ledger: ledger(part("ledger")) };
    case "ACCOUNT_UPDATED":
      return { type: e.type, timestamp, account: account(part("account")) };
    case "ORDER_CREATED":
    case "ORDER_UPDATED":
      return { type: e.type, timestamp, order: pendingOrder(part("order")) };
    case "ORDER_CANCELLED":
      return { type: e.type, timestamp, order: pendingOrder(part("order")), expired: e.expired === true };
    case "ORDER_FILLED":
      return { type: e.type, timestamp, order: pendingOrder(part("order")), positionId: str(e.positionId) };
    default:
      throw new Error(`Unknown feed event type "${str(e.type)}"`);
  }
}

export function messageToPb(message: FeedMessage): Pb {
  return { sequence: message.sequence, events: message.events.map(eventToPb) };
}

export function messageFromPb(message: Pb): FeedMessage {
  const events = Array.isArray(message.events) ? (message.events as Pb[]) : [];
  return { sequence: num(message.sequence), events: events.map(eventFromPb) };
}
