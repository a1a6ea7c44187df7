/**
 * The baseline of bench/quotesMonitor.ts: a bare AG Grid of the monitor's size fed the same ticks.
 * A static page (no React, no shell, no filters, no flash) with AG Grid Community from node_modules
 * (its UMD bundle), the monitor's columns with plain formatters, the client-side row model with row
 * ids, sorted by symbol (`deltaSort`, as the monitor). It reads the same live stream
 * (`GET /api/quotesMonitor/live`, the same bearer token and organization): the snapshot sets the rows, each frame is one `applyTransaction`
 * (updates, and adds for rows not yet held): its whole rows, ticks and figures change the held row
 * objects in place, as the monitor does.
 */
export { agGridBundle } from "../blotter/barePage.ts";

export const QUOTES_BARE_PAGE_PATH = "/__bench/bare-quotes.html";
export const QUOTES_BARE_SCRIPT_PATH = "/__bench/ag-grid-community.min.js";

export function quotesBarePageHtml(options: { headers: Record<string, string>; width: number; height: number }): string {
  const config = JSON.stringify(options);
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Bare AG Grid (quotes benchmark baseline)</title>
<style>html,body{margin:0;font:13px system-ui,sans-serif}#grid{margin:16px}</style>
<script src="${QUOTES_BARE_SCRIPT_PATH}"></script></head>
<body><div id="grid"></div>
<script>
(() => {
  const config = ${config};
  const el = document.getElementById("grid");
  el.style.width = config.width + "px";
  el.style.height = config.height + "px";
  const price = (x) => (x.value === null || x.value === undefined || !x.data ? "—" : x.value.toFixed(x.data.digits));
  const plain = (x) => (x.value === null || x.value === undefined ? "—" : String(Math.round(x.value * 10) / 10));
  const time = new Intl.DateTimeFormat("en-GB", { timeZone: "UTC", hour: "2-digit", minute: "2-digit", second: "2-digit", hour12: false });
  const right = { type: "rightAligned" };
  const columnDefs = [
    { field: "platformId", headerName: "Platform", minWidth: 120 },
    { field: "symbol", headerName: "Symbol", minWidth: 100, sort: "asc" },
    { field: "bid", headerName: "Bid", width: 110, ...right, valueFormatter: price },
    { field: "ask", headerName: "Ask", width: 110, ...right, valueFormatter: price },
    { field: "spread", headerName: "Spread", width: 95, ...right, valueFormatter: plain },
    { field: "avgSpreadMinute", headerName: "Avg spread 1m", width: 125, ...right, valueFormatter: plain },
    { field: "avgSpreadHour", headerName: "Avg spread 1h", width: 125, ...right, valueFormatter: plain },
    { field: "ticksPerMinute", headerName: "Ticks/min", width: 105, ...right },
    { field: "lastTickAt", headerName: "Last tick", width: 110, valueFormatter: (x) => (x.value ? time.format(new Date(x.value)) : "—") },
    { field: "session", headerName: "Session", width: 105 },
    { field: "alerts", headerName: "Alerts", width: 140, valueFormatter: (x) => (x.value && x.value.length ? x.value.join(", ") : "") },
  ];
  const api = agGrid.createGrid(el, {
    theme: agGrid.themeQuartz.withParams({ fontSize: 13, headerFontSize: 12, rowHeight: 36, headerHeight: 36 }),
    loadThemeGoogleFonts: false,
    columnDefs,
    defaultColDef: { sortable: true, resizable: true, suppressHeaderMenuButton: true },
    animateRows: false,
    deltaSort: true,
    getRowId: (x) => x.data.key,
  });
  const held = new Map();
  async function read() {
    const res = await fetch("/api/quotesMonitor/live", { headers: config.headers });
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
        if (event === "snapshot") {
          const rows = JSON.parse(data).rows;
          held.clear();
          for (const r of rows) held.set(r.key, r);
          api.setGridOption("rowData", rows);
        } else if (event === "frame") {
          const frame = JSON.parse(data);
          const update = new Set(), add = [];
          for (const r of frame.rows) {
            const before = held.get(r.key);
            if (before) update.add(Object.assign(before, r));
            else {
              held.set(r.key, r);
              add.push(r);
            }
          }
          for (const [key, bid, ask, spread, lastTickAt] of frame.ticks || []) {
            const r = held.get(key);
            if (!r) continue;
            r.bid = bid;
            r.ask = ask;
            r.spread = spread;
            r.lastTickAt = lastTickAt;
            update.add(r);
          }
          for (const [key, ticksPerMinute, avgSpreadMinute, avgSpreadHour] of frame.figures || []) {
            const r = held.get(key);
            if (!r) continue;
            r.ticksPerMinute = ticksPerMinute;
            r.avgSpreadMinute = avgSpreadMinute;
            r.avgSpreadHour = avgSpreadHour;
            update.add(r);
          }
          api.applyTransaction({ update: [...update], add });
        }
      }
    }
  }
  read().catch((e) => { document.title = "stream failed: " + e.message; });
})();
</script></body></html>`;
}
