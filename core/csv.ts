/**
 * One CSV cell as every export writes it, in the browser (app/ui/grid/csv.ts) and on the server
 * (deals, customers, the audit log). RFC 4180: a field with a comma, quote or line break is quoted
 * and its quotes doubled. Text a spreadsheet would run as a formula (a leading =, +, -, @, tab or
 * carriage return: CSV injection) gets a leading apostrophe; plain numbers like -12.5 are kept.
 */
const NEEDS_QUOTES = /[",\r\n]/;
const FORMULA_START = /^[=+\-@\t\r]/;
const PLAIN_NUMBER = /^[+-]?\d+(\.\d+)?$/;

export function csvCell(value: string | number | boolean | null | undefined): string {
  if (value === null || value === undefined) return "";
  let text = String(value);
  if (typeof value === "string" && FORMULA_START.test(text) && !PLAIN_NUMBER.test(text)) text = `'${text}`;
  return NEEDS_QUOTES.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}
