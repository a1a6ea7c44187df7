import { useQuery } from "@tanstack/react-query";
import { memo, useMemo, type ReactNode } from "react";
import type { BlotterRow } from "@core/schemas/blotterLive";
import type { ExposureRates } from "@core/schemas/tradesBlotter";
import { formatLots } from "@core/trading/volume";
import { api } from "~/api";
import { useCurrentOrganizationId } from "~/profile";
import { HorizontalBarChart } from "~/ui/charts/HorizontalBarChart";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "~/ui/Card";
import { formatMoney } from "~/ui/grid";
import { exposureOf, totalsOf, type BlotterFigures, type BlotterTotals } from "./blotterTotals";
import { convertExposure } from "./exposureCurrency";

const CHART_SYMBOLS = 8;
/** Conversion rates move slowly next to positions: read again each minute. */
const RATES_EVERY_MS = 60_000;
const compact = new Intl.NumberFormat("en", { notation: "compact", maximumFractionDigits: 1 });
const formatNetLots = (v: number) => String(Number(v.toFixed(2)));

/** What the totals cover, said above them: a dealer must never take the rows loaded for the whole range. */
export type TotalsScope = "live" | "range" | "pending" | "loaded";
const SCOPE_TEXT: Record<TotalsScope, string> = {
  live: "The rows in view, as they stream.",
  range: "Every matching deal of the chosen days, summed on the server.",
  pending: "Summing every matching deal of the chosen days…",
  loaded: "Only the rows loaded so far: the range's totals could not be read.",
};

/**
 * Totals of the rows in view, and net exposure per symbol in the organization's currency with a
 * chart of the largest: computed here from `rows` (historical mode), or given as `figures`
 * (streaming mode, where the stream's worker keeps them incrementally). `totals`, when given,
 * replaces the totals of the rows (historical mode: the whole range's, from the server).
 */
export const BlotterSidePanel = memo(function BlotterSidePanel(
  props: ({ rows: readonly BlotterRow[] } | { figures: BlotterFigures }) & { scope: TotalsScope; totals?: BlotterTotals | null },
) {
  const { scope } = props;
  const rows = "rows" in props ? props.rows : null;
  const given = "figures" in props ? props.figures : null;
  const organizationId = useCurrentOrganizationId();
  const rates = useQuery({
    queryKey: ["tradesBlotter", organizationId, "exposureRates"],
    queryFn: ({ signal }) => api.get<ExposureRates>("/api/tradesBlotter/exposure-rates", { signal }),
    refetchInterval: RATES_EVERY_MS,
  });
  const ownTotals = useMemo(() => given?.totals ?? totalsOf(rows ?? []), [given, rows]);
  const totals = props.totals ?? ownTotals;
  const exposure = useMemo(() => given?.exposure ?? exposureOf(rows ?? []), [given, rows]);
  const converted = useMemo(() => convertExposure(exposure, rates.data), [exposure, rates.data]);
  const currency = rates.data?.currency ?? null;
  const chart = useMemo(
    () =>
      currency === null
        ? // Without rates, lots: one unit for every symbol, where quote currencies would not compare.
          exposure.slice(0, CHART_SYMBOLS).map((e) => ({ label: e.symbol, value: e.netLots }))
        : converted
            .filter((e) => e.value !== null)
            .slice(0, CHART_SYMBOLS)
            .map((e) => ({ label: e.symbol, value: e.value! })),
    [currency, exposure, converted],
  );
  const money = (minor: number) => formatMoney(minor / 100);
  return (
    <aside aria-label="Totals and exposure" className="grid content-start gap-3">
      <Card>
        <CardHeader>
          <CardTitle>{scope === "loaded" ? "Totals (rows loaded)" : "Totals"}</CardTitle>
          <CardDescription className="text-xs" data-testid="totals-scope">
            {SCOPE_TEXT[scope]}
          </CardDescription>
        </CardHeader>
        <CardContent className="grid gap-3">
          <dl className="grid grid-cols-2 gap-x-3 gap-y-1 text-sm" data-testid="blotter-totals">
            <Figure label="Trade deals" value={totals.deals.toLocaleString("en")} />
            {/* Historical mode lists deals only: no open positions to count. */}
            {rows ? null : <Figure label="Open positions" value={totals.openPositions.toLocaleString("en")} />}
            <Figure label="Volume (lots)" value={formatLots(totals.volume)} />
            <Figure label="Profit" value={money(totals.profit)} />
            <Figure label="Commission" value={money(totals.commission)} />
            <Figure label="Swap" value={money(totals.swap)} />
          </dl>
          <div className="grid gap-1">
            <h3 className="text-xs font-medium text-muted">Money movements (not in profit)</h3>
            <dl className="grid grid-cols-2 gap-x-3 gap-y-1 text-sm" data-testid="blotter-movements">
              <Figure label="Deposits" value={money(totals.deposits)} />
              <Figure label="Withdrawals" value={money(totals.withdrawals)} />
              <Figure label="Credit (net)" value={money(totals.credit)} />
            </dl>
          </div>
          <p className="text-xs text-muted">In each account&apos;s currency, summed as the platforms report them.</p>
        </CardContent>
      </Card>
      <Card>
        <CardHeader>
          <CardTitle>Net exposure by symbol</CardTitle>
          <CardDescription className="text-xs" data-testid="exposure-currency">
            {currency === null
              ? rates.isPending
                ? "Reading conversion rates…"
                : "In lots: no conversion rates (no blotter platform connected)."
              : `Notional in ${currency}, converted with the servers' own quotes.`}
            {rows ? " Net traded volume of the deals loaded so far, not of the whole range." : ""}
          </CardDescription>
        </CardHeader>
        <CardContent className="grid gap-3">
          {exposure.length === 0 ? (
            <p className="text-sm text-muted">No open exposure in view.</p>
          ) : (
            <>
              {chart.length > 0 ? (
                <HorizontalBarChart
                  data={chart}
                  label={currency === null ? "Net lots by symbol (buy minus sell)" : `Net notional by symbol, ${currency} (buy minus sell)`}
                  format={currency === null ? formatNetLots : (v) => compact.format(v)}
                />
              ) : null}
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
                      {currency === null ? "Notional" : `Notional (${currency})`}
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {converted.map((e) => (
                    <tr key={e.symbol}>
                      <th scope="row" className="text-left font-normal">
                        {e.symbol}
                      </th>
                      <td className="text-right tabular-nums">{formatNetLots(e.netLots)}</td>
                      <td className="text-right tabular-nums" title={e.missing ?? undefined}>
                        {e.value === null ? (
                          <span>
                            —<span className="sr-only"> ({e.missing})</span>
                          </span>
                        ) : (
                          compact.format(e.value)
                        )}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
              {converted.some((e) => e.value === null && currency !== null) ? (
                <p className="text-xs text-muted">— : not converted (hover for why); such a symbol is left out of the chart.</p>
              ) : null}
            </>
          )}
        </CardContent>
      </Card>
    </aside>
  );
});

function Figure({ label, value }: { label: string; value: ReactNode }) {
  return (
    <>
      <dt className="text-muted">{label}</dt>
      <dd className="text-right tabular-nums">{value}</dd>
    </>
  );
}
