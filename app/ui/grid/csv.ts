import { csvCell } from "@core/csv";
import { saveFile } from "../saveFile";

export { csvCell };

/** One column of a CSV file: its header and how to read the cell from a row. */
export interface CsvColumn<T> {
  header: string;
  value: (row: T) => string | number | boolean | null | undefined;
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
