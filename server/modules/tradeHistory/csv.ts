/**
 * deals.csv: the grid's columns (BLOTTER_CSV_COLUMNS), RFC 4180 quoting, CRLF line ends, streamed
 * page by page: the server holds one page of rows at a time whatever the export's size.
 */
import { Readable } from "node:stream";
import { csvCell } from "../../../core/csv.ts";
import { BLOTTER_CSV_COLUMNS, type BlotterDeal } from "../../../core/schemas/tradesBlotter.ts";

export function csvLine(deal: BlotterDeal): string {
  return BLOTTER_CSV_COLUMNS.map(([key]) => csvCell(deal[key])).join(",") + "\r\n";
}

export const CSV_HEADER = BLOTTER_CSV_COLUMNS.map(([, title]) => csvCell(title)).join(",") + "\r\n";

export function csvStream(pages: AsyncGenerator<BlotterDeal[]>): Readable {
  async function* lines() {
    yield CSV_HEADER;
    for await (const page of pages) yield page.map(csvLine).join("");
  }
  return Readable.from(lines());
}
