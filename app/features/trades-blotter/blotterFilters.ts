/**
 * The blotter's filters and mode as the URL holds them (/apps/trades-blotter?symbol=EUR*&mode=history&from=…),
 * so a view can be bookmarked and shared. The stream takes these names (core/schemas/blotterLive.ts),
 * the history API its own (core/schemas/tradesBlotter.ts: `historyQuery`); both validate them,
 * here they stay text as typed.
 */
import { blotterFiltersQuery } from "@core/schemas/blotterLive";
import { BLOTTER_MAX_RANGE_DAYS, type BlotterDealQuery } from "@core/schemas/tradesBlotter";
import { csvTime, zonedToInstant } from "@core/format";
import { currentFormat } from "~/ui/format";

export type BlotterMode = "live" | "history" | "orders";

export interface BlotterFilterText {
  platforms: string[];
  login: string;
  group: string;
  symbol: string;
  side: "" | "buy" | "sell" | "balance" | "credit";
  minLots: string;
  maxLots: string;
  text: string;
}

export interface BlotterView {
  mode: BlotterMode;
  filters: BlotterFilterText;
  /** History: days (YYYY-MM-DD), inclusive, in the member's zone (their own, else the organization's). */
  from: string;
  to: string;
}

export const EMPTY_FILTERS: BlotterFilterText = { platforms: [], login: "", group: "", symbol: "", side: "", minLots: "", maxLots: "", text: "" };
const SIDES = new Set(["buy", "sell", "balance", "credit"]);
const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** The member's zone: their display preference, else the organization's default (decision 0078). */
const memberZone = () => currentFormat().timeZone;

/** The day (YYYY-MM-DD) an instant falls on in `timeZone`. */
export function dayText(date: Date, timeZone = memberZone()): string {
  return csvTime(date, timeZone).slice(0, 10);
}

/** The day before today, in `timeZone`. */
export function yesterday(now = new Date(), timeZone = memberZone()): string {
  const today = dayText(now, timeZone);
  const noon = new Date(`${today}T12:00:00Z`);
  noon.setUTCDate(noon.getUTCDate() - 1);
  return noon.toISOString().slice(0, 10);
}

export function viewFromParams(params: URLSearchParams, now = new Date()): BlotterView {
  const get = (name: string) => params.get(name)?.trim() ?? "";
  const side = get("side");
  const from = get("from");
  const to = get("to");
  return {
    mode: get("mode") === "history" ? "history" : get("mode") === "orders" ? "orders" : "live",
    filters: {
      platforms: get("platforms")
        .split(",")
        .map((p) => p.trim())
        .filter(Boolean),
      login: get("login"),
      group: get("group"),
      symbol: get("symbol"),
      side: SIDES.has(side) ? (side as BlotterFilterText["side"]) : "",
      minLots: get("minLots"),
      maxLots: get("maxLots"),
      text: get("text"),
    },
    from: DAY.test(from) ? from : yesterday(now),
    to: DAY.test(to) ? to : DAY.test(from) ? from : yesterday(now),
  };
}

/** The URL's query for a view: filters, then the mode and (history) the days; defaults left out. */
export function paramsOfView(view: BlotterView): URLSearchParams {
  const q = filtersQuery(view.filters);
  if (view.mode === "history") {
    q.set("mode", "history");
    q.set("from", view.from);
    q.set("to", view.to);
  }
  if (view.mode === "orders") q.set("mode", "orders");
  return q;
}

/** The filters as the stream and the history API take them. */
export function filtersQuery(filters: BlotterFilterText): URLSearchParams {
  return blotterFiltersQuery({ ...filters, side: filters.side || undefined });
}

/** Lots bounds that are not numbers, or a minimum above the maximum: shown as errors, not sent. */
export function invalidLots(filters: BlotterFilterText): ("minLots" | "maxLots")[] {
  const bad: ("minLots" | "maxLots")[] = [];
  const read = (v: string) => (v.trim() === "" ? null : /^\d+(\.\d{1,4})?$/.test(v.trim()) ? Number(v) : NaN);
  const min = read(filters.minLots);
  const max = read(filters.maxLots);
  if (min !== null && Number.isNaN(min)) bad.push("minLots");
  if (max !== null && Number.isNaN(max)) bad.push("maxLots");
  if (bad.length === 0 && min !== null && max !== null && min > max) bad.push("minLots");
  return bad;
}

export function activeFilterCount(filters: BlotterFilterText): number {
  return (Object.keys(EMPTY_FILTERS) as (keyof BlotterFilterText)[]).filter((k) => (Array.isArray(filters[k]) ? filters[k].length > 0 : filters[k] !== ""))
    .length;
}

/**
 * The history range as instants: from the start of `from` to the end of `to`, days in the member's
 * zone (not the browser's: a dealer in Nicosia whose laptop says London still means Nicosia's day).
 */
export function dayRange(from: string, to: string, timeZone = memberZone()): { from: string; to: string } {
  const next = new Date(`${to}T12:00:00Z`);
  next.setUTCDate(next.getUTCDate() + 1);
  const start = zonedToInstant(from, 0, 0, timeZone);
  const end = zonedToInstant(next.toISOString().slice(0, 10), 0, 0, timeZone);
  return { from: new Date(start).toISOString(), to: new Date(end).toISOString() };
}

/** What is wrong with a history range, on the field to correct, in a dealer's words; null when the API will take it. */
export function rangeProblem(from: string, to: string): { field: "from" | "to"; message: string } | null {
  if (!DAY.test(from) || Number.isNaN(Date.parse(`${from}T00:00:00`))) return { field: "from", message: "Choose a day" };
  if (!DAY.test(to) || Number.isNaN(Date.parse(`${to}T00:00:00`))) return { field: "to", message: "Choose a day" };
  if (from > to) return { field: "to", message: "The last day is before the first" };
  const range = dayRange(from, to);
  // As the API measures it (core/schemas/tradesBlotter.ts), from the start of `from` to the end of `to`.
  if (Date.parse(range.to) - Date.parse(range.from) > BLOTTER_MAX_RANGE_DAYS * 86_400_000)
    return { field: "to", message: `At most ${BLOTTER_MAX_RANGE_DAYS} days: choose a later first day or an earlier last one` };
  return null;
}

type HistoryParam = keyof Omit<BlotterDealQuery, "cursor" | "limit">;

/** The filters and days as the history API (deals, deals.csv) names them. */
export function historyQuery(view: Pick<BlotterView, "filters" | "from" | "to">): URLSearchParams {
  const { filters } = view;
  const range = dayRange(view.from, view.to);
  const q = new URLSearchParams();
  const set = (name: HistoryParam, value: string) => {
    if (value.trim() !== "") q.set(name, value.trim());
  };
  set("from", range.from);
  set("to", range.to);
  set("platformIds", filters.platforms.join(","));
  set("login", filters.login);
  set("groupMask", filters.group);
  set("symbolMask", filters.symbol);
  set("side", filters.side);
  set("volumeMin", filters.minLots);
  set("volumeMax", filters.maxLots);
  set("text", filters.text);
  return q;
}
