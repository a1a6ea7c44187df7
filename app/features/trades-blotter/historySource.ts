/**
 * Historical mode's rows: the trade history store's deals (GET /api/tradesBlotter/deals, keyset
 * paged, `BlotterDealPage` of core/schemas/tradesBlotter.ts) behind AG Grid's infinite row model,
 * each deal turned into the live stream's row shape (`rowOfStoredDeal`) so both modes share one
 * grid; and its CSV (GET /api/tradesBlotter/deals.csv) streamed with progress.
 */
import { currentFormat } from "~/ui/format";
import type { IDatasource, IGetRowsParams } from "ag-grid-community";
import { rowOfStoredDeal, type BlotterRow } from "@core/schemas/blotterLive";
import type { BlotterDealPage, BlotterDealTotals } from "@core/schemas/tradesBlotter";
import { moneyFromDecimal } from "@core/trading/money";
import { lotsToVolume } from "@core/trading/volume";
import { api } from "~/api";
import { apiHeaders } from "~/api/headers";
import { toastFailure } from "~/api/failureToasts";
import { saveFile } from "~/ui/saveFile";
import { csvFileName } from "~/ui/grid";
import type { BlotterTotals } from "./blotterTotals";

export const HISTORY_PAGE = 200;

export interface HistoryLoaded {
  /** The rows loaded so far, newest first. */
  rows: BlotterRow[];
  /** Every matching row is loaded. */
  complete: boolean;
  /** Matching rows (the first page's count, at most BLOTTER_TOTAL_CAP; `capped`: more than that). */
  total: number | null;
  capped: boolean;
}

/**
 * Keyset paging under the infinite model: block N starts where block N-1 ended, so the cursors
 * are kept by start row; a block asked for before the one ahead of it loaded walks forward from
 * the nearest known cursor.
 */
export function historyDatasource(query: URLSearchParams, onLoaded: (loaded: HistoryLoaded) => void): IDatasource {
  const cursors = new Map<number, string | null>([[0, null]]);
  const loaded: BlotterRow[] = [];
  let total: number | null = null;
  let capped = false;
  async function page(cursor: string | null): Promise<{ rows: BlotterRow[]; next: string | null }> {
    const q = new URLSearchParams(query);
    q.set("limit", String(HISTORY_PAGE));
    if (cursor) q.set("cursor", cursor);
    const answer = await api.get<BlotterDealPage>(`/api/tradesBlotter/deals?${q.toString()}`);
    if (answer.total !== null) {
      total = answer.total;
      capped = answer.totalCapped;
    }
    return { rows: answer.items.map(rowOfStoredDeal), next: answer.nextCursor };
  }
  return {
    rowCount: undefined,
    getRows(params: IGetRowsParams) {
      void (async () => {
        try {
          let start = Math.max(...[...cursors.keys()].filter((k) => k <= params.startRow));
          let cursor = cursors.get(start) ?? null;
          for (;;) {
            const { rows, next } = await page(cursor);
            for (let i = 0; i < rows.length; i++) loaded[start + i] = rows[i]!;
            if (next !== null) cursors.set(start + rows.length, next);
            if (start >= params.startRow || next === null) {
              const lastRow = next === null ? start + rows.length : undefined;
              params.successCallback(rows, lastRow);
              onLoaded({ rows: loaded.filter(Boolean), complete: next === null, total, capped });
              return;
            }
            start += rows.length;
            cursor = next;
          }
        } catch {
          params.failCallback();
        }
      })();
    },
  };
}

/** Every matching deal as CSV from the server, read as it streams (progress: lines of X-Total-Count), then saved. */
export async function exportHistoryCsv(
  query: URLSearchParams,
  onProgress: (done: number, total: number | null) => void,
  signal?: AbortSignal,
): Promise<number> {
  const headers = await apiHeaders();
  // Times in the member's zone, as on screen and in the live view's CSV (core/format.ts).
  query.set("timeZone", currentFormat().timeZone);
  let response: Response;
  try {
    response = await fetch(`/api/tradesBlotter/deals.csv?${query.toString()}`, { headers, signal, credentials: "same-origin" });
  } catch (error) {
    if (!signal?.aborted) toastFailure("");
    throw error;
  }
  if (!response.ok || !response.body) {
    toastFailure(await response.text().catch(() => ""));
    throw new Error(`HTTP ${response.status}`);
  }
  const counted = response.headers.get("X-Total-Count");
  const total = counted === null ? null : Number(counted);
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  // Line ends, less the header's; a comment holding a line break makes this run ahead a little, never past `total`.
  let lines = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    for (const byte of value) if (byte === 10) lines++;
    const rows = Math.max(0, lines - 1);
    onProgress(total === null ? rows : Math.min(rows, total), total);
  }
  saveFile(new Blob(chunks as BlobPart[], { type: "text/csv;charset=utf-8" }), csvFileName("trades-history"));
  return total ?? Math.max(0, lines - 1);
}

/** The range's totals (GET /api/tradesBlotter/deals/totals) as the side panel's: money in minor units, volume in 1/10000 lots. */
export function totalsOfRange(t: BlotterDealTotals): BlotterTotals {
  return {
    deals: t.deals,
    // Historical mode lists deals: open positions are the streaming mode's.
    openPositions: 0,
    volume: lotsToVolume(Number(t.volume)),
    profit: moneyFromDecimal(t.profit),
    commission: moneyFromDecimal(t.commission),
    swap: moneyFromDecimal(t.swap),
    deposits: moneyFromDecimal(t.deposits),
    withdrawals: moneyFromDecimal(t.withdrawals),
    credit: moneyFromDecimal(t.credit),
  };
}
