import { memo, useMemo } from "react";
import type { BlotterRow } from "@core/schemas/blotterLive";
import { formatLots } from "@core/trading/volume";
import { BarChart } from "~/ui/charts/BarChart";
import { Card, CardContent, CardHeader, CardTitle } from "~/ui/Card";
import { formatMoney } from "~/ui/grid";
import { exposureOf, totalsOf, type BlotterFigures } from "./blotterTotals";

const CHART_SYMBOLS = 8;
const formatNetLots = (v: number) => String(Number(v.toFixed(2)));
const compact = new Intl.NumberFormat("en", { notation: "compact", maximumFractionDigits: 1 });

/**
 * Totals of the rows in view, and net exposure per symbol (lots, notional) with a chart of the
 * largest: computed here from `rows` (historical mode), or given as `figures` (streaming mode,
 * where the stream's worker keeps them incrementally).
 */
export const BlotterSidePanel = memo(function BlotterSidePanel(
  props: { rows: readonly BlotterRow[]; partial?: boolean } | { figures: BlotterFigures; partial?: undefined },
) {
  const { partial = false } = props;
  const rows = "rows" in props ? props.rows : null;
  const given = "figures" in props ? props.figures : null;
  const totals = useMemo(() => given?.totals ?? totalsOf(rows ?? []), [given, rows]);
  const exposure = useMemo(() => given?.exposure ?? exposureOf(rows ?? []), [given, rows]);
  const chart = useMemo(
    () =>
      exposure.slice(0, CHART_SYMBOLS).map((e) => ({ label: e.symbol, value: e.netLots, tone: e.netLots >= 0 ? ("primary" as const) : ("danger" as const) })),
    [exposure],
  );
  return (
    <aside aria-label="Totals and exposure" className="grid content-start gap-3">
      <Card>
        <CardHeader>
          <CardTitle>Totals{partial ? " (rows loaded)" : ""}</CardTitle>
        </CardHeader>
        <CardContent>
          <dl className="grid grid-cols-2 gap-x-3 gap-y-1 text-sm" data-testid="blotter-totals">
            <dt className="text-muted">Deals</dt>
            <dd className="text-right tabular-nums">{totals.deals.toLocaleString("en")}</dd>
            <dt className="text-muted">Open positions</dt>
            <dd className="text-right tabular-nums">{totals.openPositions.toLocaleString("en")}</dd>
            <dt className="text-muted">Volume (lots)</dt>
            <dd className="text-right tabular-nums">{formatLots(totals.volume)}</dd>
            <dt className="text-muted">Profit</dt>
            <dd className="text-right tabular-nums">{formatMoney(totals.profit / 100)}</dd>
            <dt className="text-muted">Commission</dt>
            <dd className="text-right tabular-nums">{formatMoney(totals.commission / 100)}</dd>
            <dt className="text-muted">Swap</dt>
            <dd className="text-right tabular-nums">{formatMoney(totals.swap / 100)}</dd>
          </dl>
        </CardContent>
      </Card>
      <Card>
        <CardHeader>
          <CardTitle>Net exposure by symbol</CardTitle>
        </CardHeader>
        <CardContent className="grid gap-3">
          {exposure.length === 0 ? (
            <p className="text-sm text-muted">No open exposure in view.</p>
          ) : (
            <>
              <BarChart data={chart} label="Net lots by symbol (buy minus sell)" format={formatNetLots} height={150} />
              <table className="w-full text-sm">
                <caption className="sr-only">Net exposure by symbol</caption>
                <thead>
                  <tr className="text-left text-xs text-muted">
                    <th scope="col" className="font-medium">
                      Symbol
                    </th>
                    <th scope="col" className="text-right font-medium">
                      Net lots
                    </th>
                    <th scope="col" className="text-right font-medium">
                      Notional
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {exposure.map((e) => (
                    <tr key={e.symbol}>
                      <th scope="row" className="text-left font-normal">
                        {e.symbol}
                      </th>
                      <td className="text-right tabular-nums">{Number(e.netLots.toFixed(2))}</td>
                      <td className="text-right tabular-nums">{e.notional === null ? "—" : compact.format(e.notional)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </>
          )}
        </CardContent>
      </Card>
    </aside>
  );
});
