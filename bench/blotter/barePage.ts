/**
 * The baseline of bench/tradesBlotter.ts: the blotter's grid without the app. A static page (no
 * React, no shell, no side panel, no row batcher) with AG Grid Community from node_modules (its
 * UMD bundle), the blotter's columns, formatters, theme sizes and live grid options (cell change
 * flash, row ids, DOM order, sort by time descending with `deltaSort`, at most 20,000 rows:
 * STREAM_MAX_ROWS; since 2026-11-23 no row animation, no rows drawn beyond the view, no text
 * selection, as the blotter while it streams), reading the same live stream
 * (`GET /api/tradesBlotter/stream` with the same bearer token and organization), coalescing per
 * row what arrives and applying it as one transaction at an animation frame, paced as the
 * blotter's frame applier paces it (the next no sooner than 3× the last one's time, 50–250 ms).
 * It counts what it applies in
 * `window.__blotterStats`, as the blotter does.
 */
import fs from "node:fs";
import path from "node:path";
import { APPLY_MAX_GAP_MS, APPLY_MIN_GAP_MS, GAP_PER_APPLY_MS } from "../../app/features/trades-blotter/frameApplier.ts";

export const BARE_PAGE_PATH = "/__bench/bare-grid.html";
export const BARE_SCRIPT_PATH = "/__bench/ag-grid-community.min.js";

export function agGridBundle(): string {
  return fs.readFileSync(path.resolve("node_modules/ag-grid-community/dist/ag-grid-community.min.js"), "utf8");
}

export function barePageHtml(options: { headers: Record<string, string>; width: number; height: number; timeZone: string }): string {
  const config = JSON.stringify(options);
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Bare AG Grid (benchmark baseline)</title>
<style>html,body{margin:0;font:13px system-ui,sans-serif}#grid{margin:16px}</style>
<script src="${BARE_SCRIPT_PATH}"></script></head>
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
  const api = agGrid.createGrid(el, {
    theme: agGrid.themeQuartz.withParams({ fontSize: 13, headerFontSize: 12, headerFontWeight: 600, wrapperBorderRadius: 8, borderRadius: 6, spacing: 6, rowHeight: 36, headerHeight: 36, cellHorizontalPadding: 12 }),
    loadThemeGoogleFonts: false,
    columnDefs,
    defaultColDef: { sortable: true, resizable: true, minWidth: 72, suppressHeaderMenuButton: true, enableCellChangeFlash: true },
    enableCellTextSelection: false,
    ensureDomOrder: true,
    animateRows: false,
    rowBuffer: 0,
    suppressDragLeaveHidesColumns: true,
    rowData: [],
    getRowId: (x) => x.data.key,
    deltaSort: true,
  });
  const stats = window.__blotterStats;
  let model = new Map();
  function snapshot(rows) {
    model = new Map();
    for (const r of rows) model.set(r.key, r);
    while (model.size > MAX_ROWS) model.delete(model.keys().next().value);
    const all = [...model.values()];
    api.setGridOption("rowData", all);
    if (stats) { stats.resets++; stats.added += all.length; }
  }
  function frame(rows) {
    const add = [], update = [], remove = [];
    for (const r of rows) {
      if (model.has(r.key)) update.push(r);
      else add.push(r);
      model.set(r.key, r);
    }
    if (model.size > MAX_ROWS) {
      const added = new Set(add.map((r) => r.key));
      const evicted = new Set();
      for (const [k, r] of model) {
        if (model.size <= MAX_ROWS) break;
        model.delete(k);
        evicted.add(k);
        if (!added.has(k)) remove.push(r);
      }
      for (let i = add.length - 1; i >= 0; i--) if (evicted.has(add[i].key)) add.splice(i, 1);
      for (let i = update.length - 1; i >= 0; i--) if (evicted.has(update[i].key)) update.splice(i, 1);
    }
    const result = api.applyTransaction({ add, update, remove });
    if (result && result.add.length) api.flashCells({ rowNodes: result.add });
    if (stats) { stats.transactions++; stats.added += add.length; stats.updated += update.length; stats.removed += remove.length; }
  }
  // As the blotter's frame applier does: what arrived is coalesced per row and applied at an
  // animation frame, the next no sooner than ${GAP_PER_APPLY_MS}x as long as the last took (${APPLY_MIN_GAP_MS} to ${APPLY_MAX_GAP_MS} ms).
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
    nextAt = ended + Math.min(${APPLY_MAX_GAP_MS}, Math.max(${APPLY_MIN_GAP_MS}, ${GAP_PER_APPLY_MS} * (ended - started)));
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
