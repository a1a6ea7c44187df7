/**
 * CSV for customers: reading an uploaded file (RFC 4180: quoted fields, doubled quotes, line breaks
 * inside quotes, CRLF or LF) with the line each record starts on, and writing the export with the
 * same quoting and formula guard as the other exports. Reading is csv-parse's.
 */
import { Readable } from "node:stream";
import { finished } from "node:stream/promises";
import { setImmediate as yieldToEventLoop } from "node:timers/promises";
import { CsvError, parse as parseStream } from "csv-parse";
import { parse } from "csv-parse/sync";
import { csvCell } from "../../../core/csv.ts";

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

/**
 * Every record of the text, with the line it starts on; blank lines are skipped. Line endings may
 * be CRLF, LF or CR (even mixed, as files edited on several systems are): they are read as LF, in
 * fields too. Throws CsvSyntaxError, naming the line, on a broken quote.
 */
export function parseCsv(input: string): CsvRecord[] {
  const text = input.replace(/\r\n?/g, "\n");
  let rows: { record: string[]; info: { lines: number } }[];
  try {
    rows = parse(text, { bom: true, info: true, record_delimiter: "\n", relax_column_count: true, skip_empty_lines: true }) as unknown as typeof rows;
  } catch (err) {
    if (err instanceof CsvError) throw new CsvSyntaxError(lineOf(err), syntaxMessage(err));
    throw err;
  }
  return rows.flatMap(({ record, info }) => {
    if (record.length === 1 && record[0]!.trim() === "") return [];
    // `info.lines` is the line the record ends on; line breaks inside its quoted fields came before.
    const inner = record.reduce((n, field) => n + (field.match(/\n/g)?.length ?? 0), 0);
    return [{ line: info.lines - inner, fields: record }];
  });
}

/** About 200 rows of a typical customers file: a few milliseconds of parsing, even before the JIT warms up. */
const SLICE_CHARS = 16 * 1024;

/**
 * What `parseCsv` reads, in slices of `sliceChars` with a turn of the event loop between them, so
 * that a 100,000-row file (10 MB, half a second of parsing) never holds the server up for longer
 * than one slice (docs/security.md, "Limits per organization"). The same records and errors.
 */
export async function parseCsvInSlices(input: string, sliceChars = SLICE_CHARS): Promise<CsvRecord[]> {
  const records: CsvRecord[] = [];
  const parser = parseStream({ bom: true, info: true, record_delimiter: "\n", relax_column_count: true, skip_empty_lines: true });
  parser.on("data", ({ record, info }: { record: string[]; info: { lines: number } }) => {
    if (record.length === 1 && record[0]!.trim() === "") return;
    const inner = record.reduce((n, field) => n + (field.match(/\n/g)?.length ?? 0), 0);
    records.push({ line: info.lines - inner, fields: record });
  });
  let failure: Error | null = null;
  parser.on("error", (err: Error) => (failure ??= err));
  for (let start = 0; start < input.length && failure === null;) {
    let end = Math.min(input.length, start + sliceChars);
    // A CRLF or a character outside the BMP (a surrogate pair) is never cut in two.
    if (end < input.length && input[end - 1] === "\r") end++;
    const last = input.charCodeAt(end - 1);
    if (end < input.length && last >= 0xd800 && last <= 0xdbff) end++;
    parser.write(input.slice(start, end).replace(/\r\n?/g, "\n"));
    start = end;
    await yieldToEventLoop();
  }
  if (failure === null) parser.end();
  try {
    await finished(parser);
  } catch (err) {
    failure ??= err instanceof Error ? err : new Error(String(err));
  }
  if (failure !== null) {
    if (failure instanceof CsvError) throw new CsvSyntaxError(lineOf(failure), syntaxMessage(failure));
    throw failure;
  }
  return records;
}

/** The line csv-parse stopped on (its errors carry the parser's counters). */
function lineOf(err: CsvError): number {
  const lines = (err as CsvError & { lines?: unknown }).lines;
  return typeof lines === "number" ? lines : 1;
}

function syntaxMessage(err: CsvError): string {
  const line = lineOf(err);
  switch (err.code) {
    case "CSV_QUOTE_NOT_CLOSED":
      return `Line ${line}: a quoted field is never closed.`;
    case "CSV_INVALID_CLOSING_QUOTE":
      return `Line ${line}: text after a closing quote; a quote inside a field is written twice ("").`;
    default:
      return `Line ${line}: this is not valid CSV (${err.message}).`;
  }
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
