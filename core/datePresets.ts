/**
 * Date presets of the filters (audit log): today, yesterday and the last 7 days, as days of the
 * member's time zone (their display preference), given as the ISO UTC bounds the API takes. An
 * empty `to` means "until now".
 */
import { zonedToInstant } from "./format.ts";

export const DATE_PRESETS = [
  { id: "today", label: "Today" },
  { id: "yesterday", label: "Yesterday" },
  { id: "last7", label: "Last 7 days" },
] as const;
export type DatePreset = (typeof DATE_PRESETS)[number]["id"];

const DAY_MS = 86_400_000;

/** The calendar day of `at` in `timeZone`, as YYYY-MM-DD. */
function dayIn(at: number, timeZone: string): string {
  return new Intl.DateTimeFormat("en-CA", { timeZone, year: "numeric", month: "2-digit", day: "2-digit" }).format(new Date(at));
}

/** `ymd` moved by `days` calendar days. */
function addDays(ymd: string, days: number): string {
  const [y, m, d] = ymd.split("-").map(Number) as [number, number, number];
  return new Date(Date.UTC(y, m - 1, d) + days * DAY_MS).toISOString().slice(0, 10);
}

export function presetRange(preset: DatePreset, now: number, timeZone: string): { from: string; to: string } {
  const today = dayIn(now, timeZone);
  const startOf = (ymd: string) => zonedToInstant(ymd, 0, 0, timeZone);
  switch (preset) {
    case "today":
      return { from: new Date(startOf(today)).toISOString(), to: "" };
    case "yesterday":
      return { from: new Date(startOf(addDays(today, -1))).toISOString(), to: new Date(startOf(today) - 1).toISOString() };
    case "last7":
      return { from: new Date(startOf(addDays(today, -6))).toISOString(), to: "" };
  }
}
