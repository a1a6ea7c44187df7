/**
 * Figures as a dealer reads them in a table. Money arrives from the API as exact decimal strings
 * ("1250.5", "-30.00"); formatting works on the text, so no float ever rounds a cent.
 */
const EMPTY = "—";

/** "1234567.5" → "1,234,567.50"; numbers are accepted too. Anything unreadable shows as a dash. */
export function formatMoney(value: string | number | null | undefined, digits = 2): string {
  if (value === null || value === undefined || value === "") return EMPTY;
  const text = typeof value === "number" ? (Number.isFinite(value) ? value.toFixed(digits) : "") : value.trim();
  const match = /^([+-])?(\d+)(?:\.(\d*))?$/.exec(text);
  if (!match) return EMPTY;
  const [, sign, whole = "0", fraction = ""] = match;
  const grouped = whole.replace(/^0+(?=\d)/, "").replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  const decimals = digits > 0 ? `.${fraction.padEnd(digits, "0").slice(0, digits)}` : "";
  const zero = /^0*$/.test(whole) && /^0*$/.test(fraction);
  return `${sign === "-" && !zero ? "-" : ""}${grouped}${decimals}`;
}

/** Margin level in percent with two decimals; no margin in use shows a dash. */
export function formatPercent(value: string | number | null | undefined): string {
  const formatted = formatMoney(value, 2);
  return formatted === EMPTY ? EMPTY : `${formatted} %`;
}

const integerFormat = new Intl.NumberFormat("en");

export function formatInteger(value: number | null | undefined): string {
  return value === null || value === undefined || !Number.isFinite(value) ? EMPTY : integerFormat.format(value);
}

const dateTimeFormat = new Intl.DateTimeFormat("en-GB", {
  year: "numeric",
  month: "2-digit",
  day: "2-digit",
  hour: "2-digit",
  minute: "2-digit",
  second: "2-digit",
  hour12: false,
});

/** ISO text or epoch milliseconds → "21/11/2025, 14:03:07" in the viewer's zone; missing → dash. */
export function formatDateTime(value: string | number | null | undefined): string {
  const date = toDate(value);
  return date ? dateTimeFormat.format(date) : EMPTY;
}

export function toDate(value: string | number | null | undefined): Date | null {
  if (value === null || value === undefined || value === "") return null;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? null : date;
}
