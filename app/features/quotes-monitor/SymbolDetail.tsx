import { useQuery } from "@tanstack/react-query";
import { useMemo } from "react";
import type uPlot from "uplot";
import type { QuoteHistoryPoint } from "@core/schemas/quotesMonitor";
import { api } from "~/api";
import { useCurrentOrganizationId } from "~/profile";
import { Chart, type ChartOptions } from "~/ui/charts/Chart";
import { DialogContent, DialogRoot } from "~/ui/Dialog";
import type { MonitorRow } from "./quoteColumns";

/** Bid and ask (left scale) and the average spread in points (right scale) over the last hour. */
const chartOptions: ChartOptions = (theme) => ({
  legend: { show: true },
  cursor: { show: true },
  scales: { x: { time: true }, price: {}, points: {} },
  axes: [
    { stroke: theme.muted, grid: { stroke: theme.border } },
    { scale: "price", stroke: theme.muted, grid: { stroke: theme.border }, size: 70 },
    { scale: "points", side: 1, stroke: theme.muted, grid: { show: false } },
  ],
  series: [
    {},
    { label: "Bid", scale: "price", stroke: theme.tone("info"), width: 1.5, points: { show: false } },
    { label: "Ask", scale: "price", stroke: theme.tone("primary"), width: 1.5, points: { show: false } },
    { label: "Spread (avg, points)", scale: "points", stroke: theme.tone("warning"), width: 1, points: { show: false } },
  ],
});

/** A symbol's detail: its ticks and spread over the last hour, as a chart and in words. */
export function SymbolDetail({ row, onClose }: { row: MonitorRow | null; onClose: () => void }) {
  const organizationId = useCurrentOrganizationId();
  const history = useQuery({
    queryKey: ["quotesMonitor", organizationId, "history", row?.platformId, row?.symbol],
    queryFn: ({ signal }) =>
      api.get<QuoteHistoryPoint[]>(`/api/quotesMonitor/history?platformId=${row!.platformId}&symbol=${encodeURIComponent(row!.symbol)}`, { signal }),
    enabled: row !== null,
    refetchInterval: 10_000,
  });
  const points = useMemo(() => history.data ?? [], [history.data]);
  const data = useMemo<uPlot.AlignedData>(
    () => [points.map((p) => p.time / 1000), points.map((p) => p.bid), points.map((p) => p.ask), points.map((p) => p.avgSpread)],
    [points],
  );
  const ticks = points.reduce((n, p) => n + p.ticks, 0);
  const widest = points.reduce((m, p) => Math.max(m, p.maxSpread ?? 0), 0);
  return (
    <DialogRoot open={row !== null} onOpenChange={(open) => (open ? undefined : onClose())}>
      {row ? (
        <DialogContent
          title={`${row.symbol} on ${row.platformName}`}
          description="Ticks and spread over the last hour, in 10-second slices."
          className="max-w-3xl"
        >
          <p className="text-sm">
            {ticks} ticks in the last hour; widest spread {widest} points; average {row.avgSpreadHour ?? "—"} points.
          </p>
          {points.length > 0 ? <Chart options={chartOptions} data={data} height={260} /> : <p className="text-sm text-muted">No tick seen yet.</p>}
        </DialogContent>
      ) : null}
    </DialogRoot>
  );
}
