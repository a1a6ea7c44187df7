import { useId, useMemo, useState, type KeyboardEvent } from "react";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "~/ui/Card";
import { LineChart, type LineSeries } from "~/ui/charts/LineChart";
import type { ChartTone } from "~/ui/charts/theme";
import { cn, focusRing } from "~/ui/cn";
import { createFormatter, zoneOffsetMinutes, zonedToInstant } from "@core/format";
import { currentFormat } from "~/ui/format";
import { formatMoney } from "~/ui/grid/format";
import type { Overview, OverviewPoint } from "./overviewApi";
import { formatVolume } from "./PlatformCard";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const TONES: readonly ChartTone[] = ["primary", "info", "warning", "danger"];
const SWATCH: Record<ChartTone, string> = { primary: "bg-primary", success: "bg-primary", info: "bg-info", warning: "bg-warning", danger: "bg-danger" };

type Range = "24h" | "7d";
const RANGES: Record<Range, { label: string; long: string }> = {
  "24h": { label: "24 h", long: "the last 24 hours, by hour" },
  "7d": { label: "7 d", long: "the last 7 days, by day" },
};
/**
 * A bucket's label through core/format.ts, in the zone the API counted in (`overview.timeZone`:
 * the member's own, else the organization's, else UTC): an hour, or the day it starts.
 */
const bucketLabel = (range: Range, ms: number, timeZone: string) => {
  const format = createFormatter({ locale: currentFormat().locale, timeZone });
  return range === "24h" ? format.timeShort(ms) : format.date(ms);
};

/** The calendar day ("2026-11-27") `days` after the one of `ymd` (negative: before). */
const addDays = (ymd: string, days: number) => new Date(Date.parse(`${ymd}T00:00:00Z`) + days * DAY).toISOString().slice(0, 10);
/** The wall-clock day ("2026-11-27") of an instant in a zone. */
const dayIn = (at: number, timeZone: string) => new Date(at + zoneOffsetMinutes(at, timeZone) * 60_000).toISOString().slice(0, 10);

const formatLotsValue = (v: number) => formatVolume(String(Number(v.toFixed(2))));
const formatProfitValue = (v: number) => formatMoney(v);

export interface ChartPlatform {
  id: string;
  name: string;
}

interface Series {
  /** Bucket starts, ms since 1970: every hour or day of the range, empty ones included (the API leaves them out). */
  times: number[];
  /** Per platform (same order as `platforms`): the bucket's value, 0 where the API had none. */
  volume: number[][];
  profit: number[][];
}

/** Every bucket of the range, with each platform's volume and P/L filled in from the API's points. */
export function seriesOf(overview: Overview, platforms: readonly ChartPlatform[], range: Range): Series {
  const zone = overview.timeZone;
  let times: number[];
  if (range === "24h") {
    // The hour in the zone (a half-hour zone's hours start at :30 UTC), and the 23 before it.
    const asOf = Date.parse(overview.asOf);
    const offset = zoneOffsetMinutes(asOf, zone) * 60_000;
    const last = Math.floor((asOf + offset) / HOUR) * HOUR - offset;
    times = Array.from({ length: 24 }, (_, i) => last - (23 - i) * HOUR);
  } else {
    // Each of the 7 days starts at midnight in the zone (a day is 23 or 25 hours when the clocks change).
    const today = dayIn(Date.parse(overview.dayStart), zone);
    times = Array.from({ length: 7 }, (_, i) => zonedToInstant(addDays(today, i - 6), 0, 0, zone));
  }
  const index = new Map(times.map((t, i) => [t, i]));
  const volume = platforms.map(() => times.map(() => 0));
  const profit = platforms.map(() => times.map(() => 0));
  const points: OverviewPoint[] = range === "24h" ? overview.hourly : overview.daily;
  for (const point of points) {
    const p = platforms.findIndex((x) => x.id === point.platformId);
    const i = index.get(Date.parse(point.at));
    if (p < 0 || i === undefined) continue;
    volume[p]![i] = Number(point.volume);
    profit[p]![i] = Number(point.profit);
  }
  return { times, volume, profit };
}

/** Volume and P/L by platform over the last 24 hours or 7 days (uPlot), with a table of the same figures for screen readers. */
export function OverviewCharts({ overview, platforms }: { overview: Overview; platforms: readonly ChartPlatform[] }) {
  const [range, setRange] = useState<Range>("24h");
  const series = useMemo(() => seriesOf(overview, platforms, range), [overview, platforms, range]);
  const titleId = useId();
  return (
    <Card role="region" aria-labelledby={titleId} data-testid="overview-charts">
      <CardHeader className="flex flex-row flex-wrap items-start justify-between gap-3">
        <div>
          <CardTitle id={titleId}>Volume and P/L</CardTitle>
          <CardDescription>
            By platform, over {RANGES[range].long} ({overview.timeZone}). Trades recorded by the Trades Blotter.
          </CardDescription>
        </div>
        <div className="inline-flex rounded-md border border-border p-0.5" role="radiogroup" aria-label="Period">
          {(Object.keys(RANGES) as Range[]).map((r) => (
            <button
              key={r}
              type="button"
              role="radio"
              aria-checked={range === r}
              onClick={() => setRange(r)}
              className={cn("h-8 rounded px-3 text-sm font-medium", range === r ? "bg-primary/10 text-primary" : "text-fg/80 hover:bg-subtle", focusRing)}
            >
              {RANGES[r].label}
            </button>
          ))}
        </div>
      </CardHeader>
      <CardContent className="grid gap-4">
        <ul className="flex flex-wrap gap-x-4 gap-y-1 text-xs text-muted" aria-hidden>
          {platforms.map((p, i) => (
            <li key={p.id} className="flex items-center gap-1.5">
              <span className={cn("inline-block size-2.5 rounded-full", SWATCH[TONES[i % TONES.length]!])} />
              {p.name}
            </li>
          ))}
        </ul>
        <div className="grid gap-6 lg:grid-cols-2">
          <SeriesChart
            title="Volume (lots)"
            timeZone={overview.timeZone}
            range={range}
            platforms={platforms}
            times={series.times}
            values={series.volume}
            format={formatLotsValue}
          />
          <SeriesChart
            title="P/L"
            timeZone={overview.timeZone}
            range={range}
            platforms={platforms}
            times={series.times}
            values={series.profit}
            format={formatProfitValue}
          />
        </div>
      </CardContent>
    </Card>
  );
}

interface SeriesChartProps {
  title: string;
  /** The zone the API counted its hours and days in. */
  timeZone: string;
  range: Range;
  platforms: readonly ChartPlatform[];
  times: readonly number[];
  values: readonly (readonly number[])[];
  format: (value: number) => string;
}

/** One chart: a line per platform over the buckets; the same figures as a table for screen readers. */
function SeriesChart({ title, timeZone, range, platforms, times, values, format }: SeriesChartProps) {
  const lines = useMemo<LineSeries[]>(
    () => platforms.map((p, i) => ({ label: p.name, tone: TONES[i % TONES.length]!, values: values[i] ?? [] })),
    [platforms, values],
  );
  const totals = values.map((v) => v.reduce((a, b) => a + b, 0));
  const summary = platforms.map((p, i) => `${p.name} ${format(totals[i] ?? 0)}`).join(", ");
  // The bucket under the pointer, or chosen with the arrow keys while the chart has focus.
  const [active, setActive] = useState<number | null>(null);
  const shown = active !== null && active < times.length ? active : null;
  const readoutText = (index: number) =>
    `${bucketLabel(range, times[index]!, timeZone)} (${timeZone}): ${platforms.map((p, i) => `${p.name} ${format(values[i]?.[index] ?? 0)}`).join(", ")}`;
  const moveTo = (index: number) => {
    const next = Math.max(0, Math.min(times.length - 1, index));
    setActive(next);
  };
  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    const from = shown ?? times.length - 1;
    const to = { ArrowLeft: from - 1, ArrowRight: from + 1, Home: 0, End: times.length - 1 }[event.key];
    if (to === undefined) return;
    event.preventDefault();
    moveTo(to);
  };
  return (
    <figure className="grid gap-2">
      <figcaption className="text-sm font-medium">
        {title}
        <span className="block text-xs font-normal text-muted">Total: {summary || "no platforms"}</span>
      </figcaption>
      {/* A slider over the buckets: the arrow keys move the cursor, the value is the readout. */}
      <div
        tabIndex={0}
        role="slider"
        aria-label={`${title} at a time`}
        aria-orientation="horizontal"
        aria-valuemin={0}
        aria-valuemax={Math.max(0, times.length - 1)}
        aria-valuenow={shown ?? Math.max(0, times.length - 1)}
        aria-valuetext={times.length > 0 ? readoutText(shown ?? times.length - 1) : undefined}
        onFocus={() => (shown === null ? moveTo(times.length - 1) : undefined)}
        onBlur={() => setActive(null)}
        onKeyDown={onKeyDown}
        className={cn("rounded-md", focusRing)}
      >
        <LineChart
          times={times}
          series={lines}
          timeLabel={(ms) => bucketLabel(range, ms, timeZone)}
          format={format}
          height={180}
          active={shown}
          onCursor={setActive}
        />
      </div>
      <p className="min-h-8 text-xs text-muted" data-testid="chart-readout">
        {shown === null ? (
          "Point at the chart, or focus it and use the arrow keys, to read the values at a time."
        ) : (
          <>
            <span className="font-medium text-fg">
              {bucketLabel(range, times[shown]!, timeZone)} ({timeZone})
            </span>
            {platforms.map((p, i) => (
              <span key={p.id} className="ml-3 inline-flex items-center gap-1.5">
                <span aria-hidden className={cn("inline-block size-2 rounded-full", SWATCH[TONES[i % TONES.length]!])} />
                {p.name}: {format(values[i]?.[shown] ?? 0)}
              </span>
            ))}
          </>
        )}
      </p>
      {/* The table inside a hidden box, not hidden itself: a table is as wide as its content whatever its width, and on a phone it widened the page. */}
      <div className="sr-only">
        <table>
          <caption>
            {title} by platform, {RANGES[range].long}
          </caption>
          <thead>
            <tr>
              <th scope="col">{range === "24h" ? "Hour" : "Day"}</th>
              {platforms.map((p) => (
                <th key={p.id} scope="col">
                  {p.name}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {times.map((t, row) => (
              <tr key={t}>
                <th scope="row">{bucketLabel(range, t, timeZone)}</th>
                {values.map((v, i) => (
                  <td key={platforms[i]!.id}>{format(v[row] ?? 0)}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </figure>
  );
}
