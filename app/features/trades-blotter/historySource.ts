/**
 * Historical mode's rows: the trade history store's deals (GET /api/tradesBlotter/deals, keyset
 * paged) behind AG Grid's infinite row model, and its CSV (GET /api/tradesBlotter/deals.csv)
 * streamed with progress. The page's answer is read tolerantly (`items` or `rows`, `nextCursor`
 * or `cursor`) and each deal mapped to the blotter's row shape in one place, `toRow`.
 */
import type { IDatasource, IGetRowsParams } from "ag-grid-community";
import type { BlotterRow } from "@core/schemas/blotterLive";
import { api } from "~/api";
import { apiHeaders } from "~/api/headers";
import { toastFailure } from "~/api/failureToasts";
import { saveFile } from "~/ui/saveFile";
import { csvFileName } from "~/ui/grid";

export const HISTORY_PAGE = 200;

type Item = Partial<BlotterRow> & Record<string, unknown>;
interface HistoryPage {
  items?: Item[];
  rows?: Item[];
  nextCursor?: string | null;
  cursor?: string | null;
}

const num = (v: unknown, fallback = 0) =>
  typeof v === "number" ? v : typeof v === "string" && v.trim() !== "" && Number.isFinite(Number(v)) ? Number(v) : fallback;
const text = (v: unknown) => (typeof v === "string" ? v : typeof v === "number" || typeof v === "boolean" ? String(v) : "");

/** One deal of the history API as a blotter row. */
export function toRow(item: Item): BlotterRow {
  const platformId = text(item.platformId);
  const id = text(item.key ?? item.id ?? item.ticket);
  const time = typeof item.time === "string" ? Date.parse(item.time) : num(item.time);
  return {
    key: text(item.key) || `d:${platformId}:${id}`,
    kind: "deal",
    platformId,
    login: text(item.login),
    group: text(item.group),
    time,
    ticket: text(item.ticket ?? item.id),
    position: item.position === null || item.position === undefined ? null : text(item.position),
    symbol: item.symbol === null || item.symbol === undefined ? null : text(item.symbol),
    side: (item.side ?? item.action ?? "buy") as BlotterRow["side"],
    entry: item.entry ?? null,
    volume: num(item.volume),
    price: num(item.price),
    sl: item.sl === null || item.sl === undefined ? null : num(item.sl),
    tp: item.tp === null || item.tp === undefined ? null : num(item.tp),
    profit: num(item.profit),
    commission: num(item.commission),
    swap: num(item.swap),
    reason: item.reason ?? "client",
    comment: text(item.comment),
    state: null,
    contractSize: item.contractSize === null || item.contractSize === undefined ? null : num(item.contractSize),
  };
}

/**
 * Keyset paging under the infinite model: block N starts where block N-1 ended, so the cursors
 * are kept by start row; a block asked for before the one ahead of it loaded walks forward from
 * the nearest known cursor.
 */
export function historyDatasource(query: URLSearchParams, onLoaded: (rows: BlotterRow[], complete: boolean) => void): IDatasource {
  const cursors = new Map<number, string | null>([[0, null]]);
  const loaded: BlotterRow[] = [];
  async function page(cursor: string | null): Promise<{ rows: BlotterRow[]; next: string | null }> {
    const q = new URLSearchParams(query);
    q.set("limit", String(HISTORY_PAGE));
    if (cursor) q.set("cursor", cursor);
    const answer = await api.get<HistoryPage>(`/api/tradesBlotter/deals?${q.toString()}`);
    return { rows: (answer.items ?? answer.rows ?? []).map(toRow), next: answer.nextCursor ?? answer.cursor ?? null };
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
              onLoaded(loaded.filter(Boolean), next === null);
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

/** Every matching deal as CSV from the server, read as it streams (progress: bytes and lines so far), then saved. */
export async function exportHistoryCsv(query: URLSearchParams, onProgress: (lines: number) => void, signal?: AbortSignal): Promise<number> {
  const headers = await apiHeaders();
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
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let lines = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    for (const byte of value) if (byte === 10) lines++;
    onProgress(Math.max(0, lines - 1));
  }
  saveFile(new Blob(chunks as BlobPart[], { type: "text/csv;charset=utf-8" }), csvFileName("trades-history"));
  return Math.max(0, lines - 1);
}
