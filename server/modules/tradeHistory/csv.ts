/**
 * deals.csv: the grid's columns (BLOTTER_CSV_COLUMNS), RFC 4180 quoting, CRLF line ends, streamed
 * page by page: the server holds one page of rows at a time whatever the export's size.
 * Times in the one export form of core/format.ts, as the app's own CSV writes them: first in the
 * member's zone (`timeZone`, named in the header), then each server's clock with its offset.
 */
import { Readable } from "node:stream";
import { csvCell } from "../../../core/csv.ts";
import { csvServerTime, csvTime, csvTimeHeader } from "../../../core/format.ts";
import { BLOTTER_CSV_COLUMNS, type BlotterDeal } from "../../../core/schemas/tradesBlotter.ts";

function cell(deal: BlotterDeal, key: (typeof BLOTTER_CSV_COLUMNS)[number][0], timeZone: string): string {
  if (key === "time") return csvCell(csvTime(deal.time, timeZone));
  if (key === "serverTime") return csvCell(csvServerTime(deal.serverTime, deal.time));
  return csvCell(deal[key]);
}

export function csvLine(deal: BlotterDeal, timeZone = "UTC"): string {
  return BLOTTER_CSV_COLUMNS.map(([key]) => cell(deal, key, timeZone)).join(",") + "\r\n";
}

export const csvHeader = (timeZone = "UTC") =>
  BLOTTER_CSV_COLUMNS.map(([key, title]) => csvCell(key === "time" ? csvTimeHeader(timeZone) : title)).join(",") + "\r\n";

export function csvStream(pages: AsyncGenerator<BlotterDeal[]>, timeZone = "UTC"): Readable {
  async function* lines() {
    yield csvHeader(timeZone);
    for await (const page of pages) yield page.map((deal) => csvLine(deal, timeZone)).join("");
  }
  return Readable.from(lines());
}
