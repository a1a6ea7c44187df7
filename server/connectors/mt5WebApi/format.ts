/**
 * The MT5 Web API's JSON on the wire (docs/connectors.md#vendor-mt5): every answer is an envelope
 * `{"retcode": "<number> <text>", "answer": …}`, and numbers travel as strings ("Leverage": "100").
 * The protocol server writes numbers as strings; the connector reads back, by field name, the
 * fields its native types hold as numbers, and leaves every other string alone (a comment "123"
 * stays a string).
 */

import type { Mt5Deal, Mt5Event } from "../mt5/native.ts";
import { OPERATION_TAG } from "../operationOnce.ts";

/** Fields of the MT5 native shapes (server/connectors/mt5/native.ts) that are numbers in memory. */
const NUMERIC_FIELDS = new Set([
  // users
  "Registration",
  "LastAccess",
  "Leverage",
  "SOActivation",
  "Rights",
  "CurrencyDigits",
  "RightsSet",
  "RightsClear",
  // groups
  "DefaultLeverage",
  "MarginSOMode",
  "MarginMode",
  "HedgeProhibited",
  "FIFOClose",
  "LimitPositions",
  // symbols
  "Digits",
  "ContractSize",
  "ExecMode",
  "TradeMode",
  "Spread",
  "SpreadBalance",
  "MarginInitial",
  "MarginMaintenance",
  "MarginHedged",
  "StopsLevel",
  "FreezeLevel",
  "SwapLong",
  "SwapShort",
  "MaxLeverage",
  "Day",
  "Open",
  "Close",
  // ticks
  "Bid",
  "Ask",
  "Datetime_msc",
  // positions, deals, journal, requests
  "Action",
  "Entry",
  "Type",
  "Reason",
  "TimeCreateMsc",
  "TimeMsc",
  "PriceOpen",
  "PriceCurrent",
  "PriceSL",
  "PriceTP",
  "Price",
  "PriceOrder",
  "PriceDeviation",
  // orders
  "TypeTime",
  "TimeExpiration",
  "TimeSetupMsc",
  "TimeDoneMsc",
  "State",
  // time and the Toolbox event feed
  "TimeZone",
  "Daylight",
  "DaylightState",
  "Sequence",
  "Latest",
]);

const NUMBER = /^-?\d+(\.\d+)?(e[+-]?\d+)?$/i;

/** The envelope with every number as a string, as the vendor's server writes it. */
export function writeEnvelope(retcode: string, answer?: unknown, extra: Record<string, unknown> = {}): string {
  const body = answer === undefined ? { retcode, ...extra } : { retcode, ...extra, answer };
  return JSON.stringify(body, (_key, value: unknown) => (typeof value === "number" ? String(value) : value));
}

/** Parses an answer, turning the known numeric fields back into numbers. */
export function readJson(text: string): unknown {
  return JSON.parse(text, (key, value: unknown) => (typeof value === "string" && NUMERIC_FIELDS.has(key) && NUMBER.test(value) ? Number(value) : value));
}

/** The leading integer of a retcode ("0 Done" → 0); NaN when there is none. */
export function retcodeNumber(retcode: unknown): number {
  const match = typeof retcode === "string" ? /^\s*(\d+)/.exec(retcode) : null;
  return match?.[1] ? Number(match[1]) : Number.NaN;
}

/** Server time as the vendor shows it: unix seconds and the readable form, both in server time. */
export function serverTimeText(serverSeconds: number): string {
  const d = new Date(serverSeconds * 1000);
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${serverSeconds} ${d.getUTCFullYear()}.${pad(d.getUTCMonth() + 1)}.${pad(d.getUTCDate())} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;
}

/** Deals as Toolbox shows them: the operation tag it wrote into the comment is its own business. */
export function untagged(deal: Mt5Deal): Mt5Deal {
  return OPERATION_TAG.test(deal.Comment) ? { ...deal, Comment: deal.Comment.replace(OPERATION_TAG, "") } : deal;
}

export function untaggedEvent(event: Mt5Event): Mt5Event {
  return { ...event, Items: event.Items.map((item) => (item.Type === "DealAdd" ? { ...item, Deal: untagged(item.Deal) } : item)) };
}
