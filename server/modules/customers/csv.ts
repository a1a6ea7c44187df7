/**
 * CSV for customers: reading an uploaded file (RFC 4180: quoted fields, doubled quotes, line breaks
 * inside quotes, CRLF or LF) with the line each record starts on, and writing the export with the
 * same quoting and formula guard as the other exports. No CSV library is installed yet
 * (docs/decisions/0052-customers.md).
 */
import { Readable } from "node:stream";

export interface CsvRecord {
  /** The file's line (1-based) where the record starts: what the import report names. */
  line: number;
  fields: string[];
}

export class CsvSyntaxError extends Error {
  constructor(
    readonly line: number,
    message: string,
  ) {
    super(message);
  }
}

/** Every record of the text; blank lines are skipped. Throws CsvSyntaxError on a broken quote. */
export function parseCsv(input: string): CsvRecord[] {
  const text = input.startsWith("\ufeff") ? input.slice(1) : input;
  const records: CsvRecord[] = [];
  let line = 1;
  let i = 0;
  const n = text.length;
  while (i < n) {
    const start = line;
    const fields: string[] = [];
    let field = "";
    let atRecordEnd = false;
    while (!atRecordEnd) {
      if (text[i] === '"') {
        i++;
        for (;;) {
          if (i >= n) throw new CsvSyntaxError(start, `Line ${start}: a quoted field is never closed.`);
          const c = text[i]!;
          if (c === '"') {
            if (text[i + 1] === '"') {
              field += '"';
              i += 2;
              continue;
            }
            i++;
            break;
          }
          if (c === "\n") line++;
          field += c;
          i++;
        }
        if (i < n && text[i] !== "," && text[i] !== "\n" && text[i] !== "\r")
          throw new CsvSyntaxError(line, `Line ${line}: text after a closing quote; a quote inside a field is written twice ("").`);
      } else {
        while (i < n && text[i] !== "," && text[i] !== "\n" && text[i] !== "\r") field += text[i++];
      }
      fields.push(field);
      field = "";
      if (i >= n) atRecordEnd = true;
      else if (text[i] === ",") i++;
      else {
        if (text[i] === "\r") i++;
        if (text[i] === "\n") i++;
        line++;
        atRecordEnd = true;
      }
    }
    if (!(fields.length === 1 && fields[0]!.trim() === "")) records.push({ line: start, fields });
  }
  return records;
}

/** One cell: quoted when needed; text a spreadsheet would run as a formula gets a leading apostrophe. */
export function csvCell(value: string | number | null | undefined): string {
  if (value === null || value === undefined) return "";
  const raw = String(value);
  const guarded = /^[=+\-@\t\r]/.test(raw) && !/^[+-]?\d+(\.\d+)?$/.test(raw) ? `'${raw}` : raw;
  return /[",\r\n]/.test(guarded) ? `"${guarded.replace(/"/g, '""')}"` : guarded;
}

export function csvRow(values: readonly (string | number | null | undefined)[]): string {
  return values.map(csvCell).join(",") + "\r\n";
}

/** The header, then each page's lines as it comes: one page in memory at a time. */
export function csvStream(header: readonly string[], pages: AsyncGenerator<(string | number | null)[][]>): Readable {
  async function* lines() {
    yield csvRow(header);
    for await (const page of pages) yield page.map(csvRow).join("");
  }
  return Readable.from(lines());
}
