import { saveFile } from "../saveFile";

/** One column of a CSV file: its header and how to read the cell from a row. */
export interface CsvColumn<T> {
  header: string;
  value: (row: T) => string | number | boolean | null | undefined;
}

const NEEDS_QUOTES = /[",\r\n]/;
/** Text a spreadsheet would run as a formula (CSV injection); plain numbers like -12.5 are fine. */
const FORMULA_START = /^[=+\-@\t\r]/;
const PLAIN_NUMBER = /^[+-]?\d+(\.\d+)?$/;

/**
 * RFC 4180 text: fields with a comma, quote or line break are quoted and quotes doubled; text
 * starting like a formula gets a leading apostrophe so Excel shows it instead of running it.
 * Lines end with CRLF, as the RFC and Excel expect.
 */
export function csvCell(value: string | number | boolean | null | undefined): string {
  if (value === null || value === undefined) return "";
  let text = String(value);
  if (typeof value === "string" && FORMULA_START.test(text) && !PLAIN_NUMBER.test(text)) text = `'${text}`;
  return NEEDS_QUOTES.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function buildCsv<T>(columns: readonly CsvColumn<T>[], rows: Iterable<T>): string {
  const lines = [columns.map((c) => csvCell(c.header)).join(",")];
  for (const row of rows) lines.push(columns.map((c) => csvCell(c.value(row))).join(","));
  return `${lines.join("\r\n")}\r\n`;
}

/** Saves text as a file. A byte-order mark first, so Excel reads UTF-8 names correctly. */
export function saveCsv(csv: string, fileName: string) {
  saveFile(new Blob(["\ufeff", csv], { type: "text/csv;charset=utf-8" }), fileName);
}

/** "accounts-20251121-1403.csv": sortable, no characters any file system refuses. */
export function csvFileName(prefix: string, at = new Date()): string {
  const p = (n: number) => String(n).padStart(2, "0");
  return `${prefix}-${at.getFullYear()}${p(at.getMonth() + 1)}${p(at.getDate())}-${p(at.getHours())}${p(at.getMinutes())}.csv`;
}
