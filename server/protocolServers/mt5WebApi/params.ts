/**
 * One idea: reading an MT5 Web API command's parameters as the vendor does (numbers as strings,
 * lists comma-separated, `offset` / `total` paging) and refusing a bad one with the vendor's
 * retcode (CommandError), which the server turns into the `{"retcode"}` envelope.
 */
import { MT5_RETCODE } from "../../connectors/mt5/native.ts";

export const MT5_WEB_API_PAGE_MAX = 100;

/** A command refused with this retcode (and, beyond the vendor, a message in words). */
export class CommandError extends Error {
  constructor(
    readonly retcode: string,
    message = "",
  ) {
    super(message || retcode);
  }
}

export function text(value: unknown): string {
  return typeof value === "string" ? value : typeof value === "number" ? String(value) : "";
}

export function number(value: unknown): number {
  const n = Number(text(value));
  if (text(value) === "" || !Number.isFinite(n)) throw new CommandError(MT5_RETCODE.params, "A number parameter is missing or invalid.");
  return n;
}

export function login(value: unknown): string {
  const l = text(value);
  if (!/^\d{1,15}$/.test(l)) throw new CommandError(MT5_RETCODE.params, "A login is a number.");
  return l;
}

export function list(value: unknown): string[] {
  if (Array.isArray(value)) return value.map(text).filter((v) => v !== "");
  return text(value)
    .split(",")
    .map((v) => v.trim())
    .filter((v) => v !== "");
}

export function at<T>(items: T[], index: unknown): T {
  const item = items[number(index)];
  if (item === undefined) throw new CommandError(MT5_RETCODE.notFound, "No item at this index.");
  return item;
}

/** `offset` / `total` paging, at most 100 a call (the vendor's limit). */
export function page<T>(items: T[], params: Record<string, unknown>): T[] {
  const offset = number(params.offset);
  const total = number(params.total);
  if (offset < 0 || total < 1 || total > MT5_WEB_API_PAGE_MAX) throw new CommandError(MT5_RETCODE.params, `A page holds 1 to ${MT5_WEB_API_PAGE_MAX} records.`);
  return items.slice(offset, offset + total);
}
