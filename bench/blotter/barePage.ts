/**
 * The baseline of bench/tradesBlotter.ts: the blotter's grid without the app. A static page (no
 * React, no shell, no side panel, no row batcher, no worker) with AG Grid Community from
 * node_modules (its UMD bundle), the blotter's columns, formatters and theme sizes, and the live
 * grid's row model as decision 0062 has it: AG Grid's infinite row model (blocks of 100, at most
 * 10 held, row ids, no row animation, no rows drawn beyond the view, no text selection, DOM order).
 * It reads the same live stream (`GET /api/tradesBlotter/stream` with the same bearer token and
 * organization) and holds the model itself, on its main thread: at most 20,000 rows
 * (STREAM_MAX_ROWS, the first added leaving first), kept newest first by time by merging each
 * frame's rows in (not by sorting every row again), each row stamped with its arrival sequence.
 * What arrives is coalesced per row and applied at an animation frame, paced by the blotter's
 * frame pacer's own `refreshGap` (the next no sooner than 3× the last one's time, 50–250 ms); a frame
 * updates the model and calls `refreshInfiniteCache()`, and the grid's datasource answers the
 * blocks it asks for from the model (the sort model is ignored: the benchmark never sorts).
 * The infinite model flashes nothing itself: new and changed rows flash as the blotter's do, as
 * whole rows, with the blotter's own code (app/features/trades-blotter/rowFlash.ts, its types
 * stripped, and rowFlash.css); not after a snapshot. It counts what it applies in
 * `window.__blotterStats`, as the blotter does (a frame as a transaction).
 */
import fs from "node:fs";
import path from "node:path";
import { transformWithEsbuild } from "vite";

export const BARE_PAGE_PATH = "/__bench/bare-grid.html";
export const BARE_SCRIPT_PATH = "/__bench/ag-grid-community.min.js";

export function agGridBundle(): string {
  return fs.readFileSync(path.resolve("node_modules/ag-grid-community/dist/ag-grid-community.min.js"), "utf8");
}

/**
 * One of the blotter's own modules, which import nothing, for a page: its types stripped (Vite's
 * esbuild), as `window.__<name>`. The pages then run the blotter's code, not a copy of it.
 */
export async function blotterModuleScript(name: "rowFlash" | "framePacer"): Promise<string> {
  const file = path.resolve("app/features/trades-blotter", `${name}.ts`);
  const { code } = await transformWithEsbuild(fs.readFileSync(file, "utf8"), file, { format: "iife", globalName: `__${name}`, target: "es2022" });
  return `<script>${code}</script>`;
}

/** What the bare page runs of the blotter's own: the row flash (its script and style) and the refresh pacing. */
export async function barePageAssets(): Promise<string> {
  const css = fs.readFileSync(path.resolve("app/features/trades-blotter/rowFlash.css"), "utf8");
  return `<style>${css}</style>\n${await blotterModuleScript("rowFlash")}\n${await blotterModuleScript("framePacer")}`;
}

export function barePageHtml(options: {
  headers: Record<string, string>;
  width: number;
  height: number;
  timeZone: string;
  /** barePageAssets() */
  assets: string;
}): string {
  const { assets, ...rest } = options;
  const config = JSON.stringify(rest);
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Bare AG Grid (benchmark baseline)</title>
<style>html,body{margin:0;font:13px system-ui,sans-serif}#grid{margin:16px}</style>
<script src="${BARE_SCRIPT_PATH}"></script>
${assets}</head>
<body><div id="grid"></div>
<script>
(() => {
  const config = ${config};
  const el = document.getElementById("grid");
  el.style.width = config.width + "px";
  el.style.height = config.height + "px";
  const MAX_ROWS = 20000;
  const pad = (n) => String(n).padStart(2, "0");
  const serverFormat = new Intl.DateTimeFormat("en-GB", { timeZone: config.timeZone, year: "numeric", month: "2-digit", day: "2-digit", hour: "2-digit", minute: "2-digit", second: "2-digit", hour12: false });
  const utcFormat = new Intl.DateTimeFormat("en-GB", { timeZone: "UTC", year: "numeric", month: "2-digit", day: "2-digit", hour: "2-digit", minute: "2-digit", second: "2-digit", hour12: false });
  const money = new Intl.NumberFormat("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 });
  const m = (v) => (v === null || v === undefined ? "—" : money.format(v / 100));
  const p = (v) => (v === null || v === undefined ? "—" : String(v));
  const lots = (v) => (Number(v) / 10000).toFixed(2);
  const right = { type: "rightAligned", cellClass: "ag-right-aligned-cell" };
  const text = (def) => ({ minWidth: 90, ...def });
  const columnDefs = [
    { colId: "serverTime", field: "time", headerName: "Time (server)", width: 170, pinned: "left", sort: "desc", valueFormatter: (x) => (x.data ? serverFormat.format(new Date(x.data.time)) : "") },
    { colId: "utcTime", field: "time", headerName: "Time (UTC)", width: 170, valueFormatter: (x) => (x.data ? utcFormat.format(new Date(x.data.time)) : "") },
    text({ field: "platformId", headerName: "Platform", width: 150, valueFormatter: () => "Bench MT5" }),
    text({ field: "login", headerName: "Login", width: 100 }),
    text({ field: "group", headerName: "Group", width: 150 }),
    text({ field: "kind", headerName: "Type", width: 110, valueFormatter: (x) => (x.data ? (x.data.kind === "deal" ? "Deal" : x.data.state === "closed" ? "Position (closed)" : "Position") : "") }),
    text({ field: "ticket", headerName: "Ticket / deal", width: 120 }),
    text({ field: "position", headerName: "Position", width: 120, valueFormatter: (x) => x.value ?? "—" }),
    text({ field: "symbol", headerName: "Symbol", width: 105, valueFormatter: (x) => x.value ?? "—" }),
    text({ field: "side", headerName: "Side", width: 90, valueFormatter: (x) => ({ buy: "Buy", sell: "Sell", balance: "Balance", credit: "Credit" })[x.value] }),
    text({ field: "entry", headerName: "Entry", width: 80, valueFormatter: (x) => (x.value ? ({ in: "In", out: "Out" })[x.value] : "") }),
    { field: "volume", headerName: "Volume (lots)", width: 120, ...right, valueFormatter: (x) => lots(x.value) },
    { field: "price", headerName: "Price", width: 110, ...right, valueFormatter: (x) => p(x.value) },
    { field: "sl", headerName: "SL", width: 100, ...right, valueFormatter: (x) => p(x.value) },
    { field: "tp", headerName: "TP", width: 100, ...right, valueFormatter: (x) => p(x.value) },
    { field: "profit", headerName: "Profit", width: 120, ...right, valueFormatter: (x) => m(x.value) },
    { field: "commission", headerName: "Commission", width: 120, ...right, valueFormatter: (x) => m(x.value) },
    { field: "swap", headerName: "Swap", width: 100, ...right, valueFormatter: (x) => m(x.value) },
    text({ field: "reason", headerName: "Reason", width: 110 }),
    text({ field: "comment", headerName: "Comment", width: 200 }),
  ];
  // The model the page holds (in the blotter it is the stream worker's, decision 0062): the rows
  // by key, the first added leaving first past MAX_ROWS, and the same rows newest first by time
  // (ties: the later arrival first; each row carries its arrival sequence "s").
  let byKey = new Map();
  let sorted = [];
  let seq = 0;
  // Rows with a larger "s" than this are new or changed since the grid last showed the model: they flash.
  let flashAbove = 0;
  const flash = window.__rowFlash.createRowFlash((row) => row.s, () => api.setGridOption("rowClassRules", flash.rules));
  const newestFirst = (a, b) => b.time - a.time || b.s - a.s;
  const datasource = {
    // The benchmark never sorts: the sort model is ignored, the rows stay newest first.
    getRows(params) {
      const rows = sorted.slice(params.startRow, params.endRow);
      params.successCallback(rows, sorted.length);
    },
  };
  const api = agGrid.createGrid(el, {
    theme: agGrid.themeQuartz.withParams({ fontSize: 13, headerFontSize: 12, headerFontWeight: 600, wrapperBorderRadius: 8, borderRadius: 6, spacing: 6, rowHeight: 36, headerHeight: 36, cellHorizontalPadding: 12 }),
    loadThemeGoogleFonts: false,
    columnDefs,
    defaultColDef: { sortable: true, resizable: true, minWidth: 72, suppressHeaderMenuButton: true },
    enableCellTextSelection: false,
    ensureDomOrder: true,
    animateRows: false,
    rowBuffer: 0,
    suppressDragLeaveHidesColumns: true,
    rowModelType: "infinite",
    cacheBlockSize: 100,
    maxBlocksInCache: 10,
    datasource,
    getRowId: (x) => x.data.key,
    rowClassRules: flash.rules,
  });
  const stats = window.__blotterStats;
  function snapshot(rows) {
    // What a snapshot shows is not new: it flashes nothing.
    flash.refreshing(seq, false);
    byKey = new Map();
    for (const r of rows) {
      r.s = ++seq;
      byKey.set(r.key, r);
    }
    while (byKey.size > MAX_ROWS) byKey.delete(byKey.keys().next().value);
    sorted = [...byKey.values()].sort(newestFirst);
    flashAbove = seq;
    api.refreshInfiniteCache();
    if (stats) { stats.resets++; stats.added += sorted.length; }
  }
  function frame(rows) {
    flashAbove = seq;
    flash.refreshing(seq, true);
    let added = 0, updated = 0, removed = 0;
    const isNew = new Set();
    for (const r of rows) {
      r.s = ++seq;
      if (byKey.has(r.key)) updated++;
      else { added++; isNew.add(r.key); }
      byKey.set(r.key, r);
    }
    // Past MAX_ROWS the first added leave first (a row added and gone in the same frame never showed).
    for (const [k, r] of byKey) {
      if (byKey.size <= MAX_ROWS) break;
      byKey.delete(k);
      if (isNew.has(k)) added--;
      else { removed++; if (r.s > flashAbove) updated--; }
    }
    // Kept sorted by a merge, not a sort of every row: one pass drops the rows that changed or
    // left (byKey no longer holds that object), the frame's rows are sorted, then the two merged.
    const kept = sorted.filter((r) => byKey.get(r.key) === r);
    const incoming = rows.filter((r) => byKey.get(r.key) === r).sort(newestFirst);
    const merged = new Array(kept.length + incoming.length);
    let i = 0, j = 0, n = 0;
    while (i < kept.length && j < incoming.length) merged[n++] = newestFirst(kept[i], incoming[j]) <= 0 ? kept[i++] : incoming[j++];
    while (i < kept.length) merged[n++] = kept[i++];
    while (j < incoming.length) merged[n++] = incoming[j++];
    sorted = merged;
    // The grid reads back the blocks it holds (getRows, from a timeout).
    api.refreshInfiniteCache();
    if (stats) { stats.transactions++; stats.added += added; stats.updated += updated; stats.removed += removed; }
  }
  // As the blotter's frame pacer does: what arrived is coalesced per row and applied at an
  // animation frame, the next no sooner than its refreshGap says (a multiple of what the last took, bounded).
  let pending = new Map();
  let nextAt = 0;
  let scheduled = false;
  function applyPending() {
    scheduled = false;
    const started = performance.now();
    if (pending.size > 0) {
      const rows = [...pending.values()];
      pending = new Map();
      frame(rows);
    }
    const ended = performance.now();
    nextAt = ended + window.__framePacer.refreshGap(ended - started);
  }
  function schedule() {
    if (scheduled) return;
    scheduled = true;
    setTimeout(() => requestAnimationFrame(applyPending), Math.max(0, nextAt - performance.now()));
  }
  async function read() {
    const res = await fetch("/api/tradesBlotter/stream", { headers: config.headers });
    if (!res.ok) { document.title = "stream " + res.status; return; }
    const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += value;
      let end;
      while ((end = buffer.indexOf("\\n\\n")) >= 0) {
        const message = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        let event = "message", data = "";
        for (const line of message.split("\\n")) {
          if (line.startsWith("event: ")) event = line.slice(7);
          else if (line.startsWith("data: ")) data += line.slice(6);
        }
        if (event === "snapshot") { pending = new Map(); snapshot(JSON.parse(data).rows); }
        else if (event === "frame") { for (const r of JSON.parse(data).rows) { pending.delete(r.key); pending.set(r.key, r); } schedule(); }
      }
    }
  }
  read().catch((e) => { document.title = "stream failed: " + e.message; });
})();
</script></body></html>`;
}
