/**
 * One way to show dates, times, money and volumes (docs/decisions/0072-one-way-to-show-figures.md):
 * every screen and export formats through here, following the member's display preference
 * (locale and time zone, saved under DISPLAY_PREFERENCE_KEY). Intl does the work; money stays
 * exact text (no float ever rounds a cent), grouped with the locale's own separators.
 */

import { normalizeTimeZone } from "./schemas/timeZone.ts";

/** The preference key (GET/PUT /api/preferences/display). */
export const DISPLAY_PREFERENCE_KEY = "display";

/** What a member chooses; null or absent means "as the browser is set". */
export interface DisplayPreference {
  locale?: string | null;
  timeZone?: string | null;
}

/** The formats a member picks from: each named by what it looks like. */
export const DISPLAY_LOCALES = [
  { value: "en-GB", label: "27/11/2026 14:03 · 1,234.56" },
  { value: "en-US", label: "11/27/2026 2:03 PM · 1,234.56" },
  { value: "de-DE", label: "27.11.2026 14:03 · 1.234,56" },
  { value: "fr-FR", label: "27/11/2026 14:03 · 1 234,56" },
  { value: "sv-SE", label: "2026-11-27 14:03 · 1 234,56 (ISO dates)" },
] as const;

const EMPTY = "—";

/** A locale Intl accepts, else undefined (the runtime's own). */
export function supportedLocale(locale: string | null | undefined): string | undefined {
  if (!locale) return undefined;
  try {
    return Intl.DateTimeFormat.supportedLocalesOf([locale])[0];
  } catch {
    return undefined;
  }
}

/** A time zone Intl knows, spelled as given (Asia/Kolkata stays so, not Intl's Asia/Calcutta), else undefined. */
export function supportedTimeZone(timeZone: string | null | undefined): string | undefined {
  if (!timeZone) return undefined;
  return normalizeTimeZone(timeZone) ?? undefined;
}

export function toDate(value: string | number | Date | null | undefined): Date | null {
  if (value === null || value === undefined || value === "") return null;
  const date = value instanceof Date ? value : new Date(value);
  return Number.isNaN(date.getTime()) ? null : date;
}

export interface Formatter {
  /** The locale and zone in use (resolved: never empty). */
  locale: string;
  timeZone: string;
  /** "27/11/2026, 14:03:07" (en-GB) in the member's zone. */
  dateTime: (value: string | number | Date | null | undefined) => string;
  /** "27/11/2026, 14:03": where seconds say nothing (inbox, lists of events). */
  dateTimeShort: (value: string | number | Date | null | undefined) => string;
  /** "27/11/2026". */
  date: (value: string | number | Date | null | undefined) => string;
  /** "14:03:07". */
  time: (value: string | number | Date | null | undefined) => string;
  /** "14:03" (en-GB), "02:03 PM" (en-US): hours and minutes, for chart axes and clocks at a glance. */
  timeShort: (value: string | number | Date | null | undefined) => string;
  /** A time on another clock (a platform's server), with that clock's offset: "27/11/2026, 16:03:07 GMT+2". */
  dateTimeIn: (value: string | number | Date | null | undefined, timeZone: string | undefined) => string;
  /** "1234567.5" → "1,234,567.50" (en-GB), "1.234.567,50" (de-DE); exact on decimal text. */
  money: (value: string | number | null | undefined, digits?: number) => string;
  /** Lots with two decimals: "0.10", "1,250.00". */
  volume: (lots: number | string | null | undefined) => string;
  integer: (value: number | null | undefined) => string;
  /** "12.50 %". */
  percent: (value: string | number | null | undefined) => string;
  /** A date given as YYYY-MM-DD (a range's bound) as the member reads dates. */
  isoDate: (ymd: string) => string;
  /** How dates are typed in this format: the order of day, month, year and the separator. */
  datePattern: DatePattern;
}

export interface DatePattern {
  order: ("day" | "month" | "year")[];
  separator: string;
  /** "dd/mm/yyyy". */
  placeholder: string;
}

const cache = new Map<string, Formatter>();

/** The formatter for a locale and zone (cached: Intl formats are costly to build). */
export function createFormatter(preference: DisplayPreference = {}, fallback: { locale?: string; timeZone?: string } = {}): Formatter {
  const locale = supportedLocale(preference.locale) ?? supportedLocale(fallback.locale) ?? new Intl.DateTimeFormat().resolvedOptions().locale;
  const timeZone = supportedTimeZone(preference.timeZone) ?? supportedTimeZone(fallback.timeZone) ?? new Intl.DateTimeFormat().resolvedOptions().timeZone;
  const key = `${locale}|${timeZone}`;
  const known = cache.get(key);
  if (known) return known;

  const day = { year: "numeric", month: "2-digit", day: "2-digit" } as const;
  const clock = { hour: "2-digit", minute: "2-digit" } as const;
  const dateTimeFormat = new Intl.DateTimeFormat(locale, { timeZone, ...day, ...clock, second: "2-digit" });
  const shortFormat = new Intl.DateTimeFormat(locale, { timeZone, ...day, ...clock });
  const dateFormat = new Intl.DateTimeFormat(locale, { timeZone, ...day });
  const utcDateFormat = new Intl.DateTimeFormat(locale, { timeZone: "UTC", ...day });
  const timeFormat = new Intl.DateTimeFormat(locale, { timeZone, ...clock, second: "2-digit" });
  const timeShortFormat = new Intl.DateTimeFormat(locale, { timeZone, ...clock });
  const zoneFormats = new Map<string, Intl.DateTimeFormat>();
  const numberParts = new Intl.NumberFormat(locale).formatToParts(1234567.5);
  const group = numberParts.find((p) => p.type === "group")?.value ?? ",";
  const decimal = numberParts.find((p) => p.type === "decimal")?.value ?? ".";
  const integerFormat = new Intl.NumberFormat(locale, { maximumFractionDigits: 0 });

  const fmt = (format: Intl.DateTimeFormat) => (value: string | number | Date | null | undefined) => {
    const date = toDate(value);
    return date ? format.format(date) : EMPTY;
  };

  const money = (value: string | number | null | undefined, digits = 2): string => {
    if (value === null || value === undefined || value === "") return EMPTY;
    const text = typeof value === "number" ? (Number.isFinite(value) ? value.toFixed(digits) : "") : value.trim();
    const match = /^([+-])?(\d+)(?:\.(\d*))?$/.exec(text);
    if (!match) return EMPTY;
    const [, sign, whole = "0", fraction = ""] = match;
    const grouped = whole.replace(/^0+(?=\d)/, "").replace(/\B(?=(\d{3})+(?!\d))/g, group);
    const decimals = digits > 0 ? `${decimal}${fraction.padEnd(digits, "0").slice(0, digits)}` : "";
    const zero = /^0*$/.test(whole) && /^0*$/.test(fraction);
    return `${sign === "-" && !zero ? "-" : ""}${grouped}${decimals}`;
  };

  const formatter: Formatter = {
    locale,
    timeZone,
    dateTime: fmt(dateTimeFormat),
    dateTimeShort: fmt(shortFormat),
    date: fmt(dateFormat),
    time: fmt(timeFormat),
    timeShort: fmt(timeShortFormat),
    dateTimeIn: (value, zone) => {
      const date = toDate(value);
      if (!date || !zone) return EMPTY;
      let format = zoneFormats.get(zone);
      if (!format) {
        try {
          format = new Intl.DateTimeFormat(locale, { timeZone: zone, ...day, ...clock, second: "2-digit", timeZoneName: "shortOffset" });
        } catch {
          return EMPTY;
        }
        zoneFormats.set(zone, format);
      }
      return format.format(date);
    },
    money,
    volume: (lots) => (lots === null || lots === undefined || lots === "" ? EMPTY : money(typeof lots === "number" ? lots.toFixed(2) : lots, 2)),
    integer: (value) => (value === null || value === undefined || !Number.isFinite(value) ? EMPTY : integerFormat.format(value)),
    percent: (value) => {
      const text = money(value, 2);
      return text === EMPTY ? EMPTY : `${text} %`;
    },
    isoDate: (ymd) => {
      const date = /^\d{4}-\d{2}-\d{2}$/.test(ymd) ? toDate(`${ymd}T00:00:00Z`) : null;
      return date ? utcDateFormat.format(date) : ymd || EMPTY;
    },
    datePattern: datePatternOf(utcDateFormat),
  };
  cache.set(key, formatter);
  return formatter;
}

function datePatternOf(format: Intl.DateTimeFormat): DatePattern {
  const parts = format.formatToParts(new Date(Date.UTC(2026, 10, 27)));
  const order = parts.flatMap((p) => (p.type === "day" || p.type === "month" || p.type === "year" ? [p.type] : []));
  const separator = parts.find((p) => p.type === "literal")?.value ?? "/";
  const names = { day: "dd", month: "mm", year: "yyyy" } as const;
  return { order, separator, placeholder: order.map((o) => names[o]).join(separator) };
}

/** Text typed in a pattern ("27/11/2026", "27.11.2026", "2026-11-27") as YYYY-MM-DD, or null. */
export function parseDate(text: string, pattern: DatePattern): string | null {
  const groups = text.trim().match(/\d+/g);
  if (!groups || groups.length !== 3) return null;
  const at = (part: "day" | "month" | "year") => Number(groups[pattern.order.indexOf(part)]);
  const [year, month, day] = [at("year"), at("month"), at("day")];
  if (year < 1000 || year > 9999 || month < 1 || month > 12 || day < 1) return null;
  const date = new Date(Date.UTC(year, month - 1, day));
  if (date.getUTCMonth() !== month - 1) return null;
  return date.toISOString().slice(0, 10);
}

// ——— Exports (CSV): one machine-readable form, the zone in the header ———

const csvFormats = new Map<string, Intl.DateTimeFormat>();
function csvFormat(timeZone: string): Intl.DateTimeFormat {
  let format = csvFormats.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat("en-CA", {
      timeZone,
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
      hourCycle: "h23",
      timeZoneName: "longOffset",
    });
    csvFormats.set(timeZone, format);
  }
  return format;
}

/**
 * A time in an export: "2026-11-27 09:13:07" in `timeZone` (the zone goes in the column's header,
 * see csvTimeHeader), which every spreadsheet reads as a date and time. With `withOffset`, the
 * offset follows ("2026-11-27 09:13:07 +02:00"), for columns that mix zones (each server's clock).
 */
export function csvTime(value: string | number | Date | null | undefined, timeZone: string | undefined, withOffset = false): string {
  const date = toDate(value);
  if (!date || !timeZone) return "";
  let parts: Intl.DateTimeFormatPart[];
  try {
    parts = csvFormat(timeZone).formatToParts(date);
  } catch {
    return "";
  }
  const get = (type: Intl.DateTimeFormatPartTypes) => parts.find((p) => p.type === type)?.value ?? "";
  const text = `${get("year")}-${get("month")}-${get("day")} ${get("hour")}:${get("minute")}:${get("second")}`;
  if (!withOffset) return text;
  const offset = get("timeZoneName").replace(/^GMT/, "") || "+00:00";
  return `${text} ${offset}`;
}

/** "Time (Europe/Nicosia)". */
export const csvTimeHeader = (timeZone: string) => `Time (${timeZone})`;

/** Money in an export: exact decimal text with a point and no grouping, which spreadsheets read. */
export function csvMoney(minor: number | null | undefined): string {
  return minor === null || minor === undefined ? "" : (minor / 100).toFixed(2);
}

/**
 * A platform's clock in an export, from the two forms the API holds of one instant: the UTC time
 * and the server's wall clock ("2025-11-21 12:00:00.000") → "2025-11-21 12:00:00 +02:00", as
 * csvTime(…, zone, true) writes it.
 */
export function csvServerTime(serverTime: string, utc: string | number): string {
  const wall = /^(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}:\d{2})/.exec(serverTime);
  const instant = toDate(utc);
  if (!wall || !instant) return serverTime;
  const minutes = Math.round((Date.parse(`${wall[1]}T${wall[2]}Z`) - Math.floor(instant.getTime() / 1000) * 1000) / 60_000);
  const sign = minutes < 0 ? "-" : "+";
  const abs = Math.abs(minutes);
  const offset = `${sign}${String(Math.floor(abs / 60)).padStart(2, "0")}:${String(abs % 60).padStart(2, "0")}`;
  return `${wall[1]} ${wall[2]} ${offset}`;
}

/** The offset of `timeZone` from UTC at an instant, in minutes (Athens in winter: 120). */
export function zoneOffsetMinutes(at: number, timeZone: string): number {
  const parts = csvFormat(timeZone).formatToParts(new Date(at));
  const get = (type: Intl.DateTimeFormatPartTypes) => Number(parts.find((p) => p.type === type)?.value ?? 0);
  const wall = Date.UTC(get("year"), get("month") - 1, get("day"), get("hour") % 24, get("minute"), get("second"));
  return Math.round((wall - Math.floor(at / 1000) * 1000) / 60_000);
}

/** A wall-clock time in `timeZone` ("2026-11-27", 14, 3) as the instant it names (epoch ms). */
export function zonedToInstant(ymd: string, hours: number, minutes: number, timeZone: string): number {
  const [y, m, d] = ymd.split("-").map(Number) as [number, number, number];
  const wall = Date.UTC(y, m - 1, d, hours, minutes);
  let at = wall - zoneOffsetMinutes(wall, timeZone) * 60_000;
  // Across a change of offset the first guess is off by the change: one more step settles it.
  at = wall - zoneOffsetMinutes(at, timeZone) * 60_000;
  return at;
}

/** "27/11/2026 14:03" (the member's date pattern, then hours and minutes) in `timeZone` → ISO UTC, or null. */
export function parseDateTime(text: string, pattern: DatePattern, timeZone: string): string | null {
  const match = /^\s*(\S+)(?:[\s,T]+(\d{1,2})[:.](\d{2}))?\s*$/.exec(text);
  if (!match) return null;
  const ymd = parseDate(match[1]!, pattern);
  const [hours, minutes] = [Number(match[2] ?? 0), Number(match[3] ?? 0)];
  if (!ymd || hours > 23 || minutes > 59) return null;
  return new Date(zonedToInstant(ymd, hours, minutes, timeZone)).toISOString();
}
