import { useCallback, useId, useMemo, useState, type KeyboardEvent } from "react";
import type uPlot from "uplot";
import { Chart, type ChartOptions } from "~/ui/charts/Chart";
import { cn, focusRing } from "~/ui/cn";
import { currentFormat } from "~/ui/format";
import { formatMs, type LinkStatus } from "./statusApi";

interface Props {
  link: LinkStatus;
  /** The API's window: [since, asOf), every bucketSeconds. */
  since: string;
  asOf: string;
  bucketSeconds: number;
}

/**
 * The whole copy's latency (source event → acknowledgement) of one link, p50 and p99 per 5 minutes
 * over the last 24 hours (uPlot through the one wrapper). Buckets without copies are gaps. The
 * chart is a keyboard slider over the buckets that had copies; a visually hidden table has the
 * same figures.
 */
export function LatencyChart({ link, since, asOf, bucketSeconds }: Props) {
  const step = bucketSeconds * 1000;
  const titleId = useId();
  const { times, p50, p99 } = useMemo(() => {
    const first = Math.floor(Date.parse(since) / step) * step;
    const last = Math.floor(Date.parse(asOf) / step) * step;
    const byAt = new Map(link.series.map((p) => [Date.parse(p.at), p]));
    const xs: number[] = [];
    for (let at = first; at <= last; at += step) xs.push(at);
    return { times: xs, p50: xs.map((at) => byAt.get(at)?.p50 ?? null), p99: xs.map((at) => byAt.get(at)?.p99 ?? null) };
  }, [link.series, since, asOf, step]);
  const options = useCallback<ChartOptions>((theme, UPlot) => {
    const font = `11px ${theme.fontFamily}`;
    return {
      legend: { show: false },
      cursor: { show: true, x: true, y: false, points: { show: true, size: 7 }, drag: { x: false, y: false } },
      padding: [8, 8, 0, 0],
      tzDate: (ts) => UPlot.tzDate(new Date(ts * 1000), currentFormat().timeZone),
      scales: { x: { time: true }, y: { range: (_u, _min, max) => [0, Math.max(1, max) * 1.1] } },
      axes: [
        {
          stroke: theme.muted,
          font,
          grid: { show: false },
          ticks: { stroke: theme.border },
          values: (_u, splits) => splits.map((s) => currentFormat().timeShort(s * 1000)),
        },
        {
          stroke: theme.muted,
          font,
          size: 72,
          grid: { stroke: theme.border, width: 1 },
          ticks: { show: false },
          values: (_u, splits) => splits.map((s) => formatMs(s)),
        },
      ],
      series: [
        {},
        { label: "p50", stroke: theme.tone("primary"), width: 2, points: { show: true, size: 4 }, spanGaps: false },
        { label: "p99", stroke: theme.tone("warning"), width: 2, points: { show: true, size: 4 }, spanGaps: false },
      ],
    };
  }, []);
  const data = useMemo<uPlot.AlignedData>(() => [times.map((t) => t / 1000), p50, p99], [times, p50, p99]);
  const withCopies = link.series;
  const [active, setActive] = useState<number | null>(null);
  const [keyed, setKeyed] = useState<number | null>(null);
  const filled = useMemo(() => times.flatMap((t, i) => (p50[i] !== null ? [i] : [])), [times, p50]);
  const readout = (i: number) => {
    const point = link.series.find((p) => Date.parse(p.at) === times[i]);
    const at = currentFormat().timeShort(times[i]);
    return point ? `${at}: ${point.copies} copies, p50 ${formatMs(point.p50)}, p99 ${formatMs(point.p99)}` : `${at}: no copies`;
  };
  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    if (filled.length === 0) return;
    const at = keyed === null ? filled.length - 1 : Math.max(0, filled.indexOf(keyed));
    const to = { ArrowLeft: at - 1, ArrowRight: at + 1, Home: 0, End: filled.length - 1 }[event.key];
    if (to === undefined) return;
    event.preventDefault();
    const index = filled[Math.max(0, Math.min(filled.length - 1, to))]!;
    setKeyed(index);
    setActive(index);
  };
  const shown = active !== null && active < times.length ? active : null;
  return (
    <figure className="grid gap-2" aria-labelledby={titleId}>
      <figcaption id={titleId} className="text-sm font-medium">
        Copy latency of {link.name}
        <span className="block text-xs font-normal text-muted">
          Source event to the follower platform's acknowledgement, p50 and p99 per {bucketSeconds / 60} minutes over the last 24 hours (
          {currentFormat().timeZone}).
          {withCopies.length === 0 ? " No copies in this period." : ""}
        </span>
      </figcaption>
      <ul className="flex gap-4 text-xs text-muted" aria-hidden>
        <li className="flex items-center gap-1.5">
          <span className="inline-block size-2.5 rounded-full bg-primary" />
          p50
        </li>
        <li className="flex items-center gap-1.5">
          <span className="inline-block size-2.5 rounded-full bg-warning" />
          p99
        </li>
      </ul>
      <div
        tabIndex={0}
        role="slider"
        aria-label={`Copy latency of ${link.name} at a time`}
        aria-orientation="horizontal"
        aria-valuemin={0}
        aria-valuemax={Math.max(0, times.length - 1)}
        aria-valuenow={shown ?? Math.max(0, times.length - 1)}
        aria-valuetext={shown !== null ? readout(shown) : filled.length ? readout(filled.at(-1)!) : "No copies in the last 24 hours"}
        onBlur={() => (setActive(null), setKeyed(null))}
        onKeyDown={onKeyDown}
        className={cn("rounded-md", focusRing)}
      >
        <Chart options={options} data={data} height={200} onCursor={setActive} cursorAt={keyed} />
      </div>
      <p className="min-h-5 text-xs text-muted" data-testid="latency-readout">
        {shown === null ? "Point at the chart, or focus it and use the arrow keys, to read a time's latency." : readout(shown)}
      </p>
      {/* The table inside a hidden box, not hidden itself: a table is as wide as its content whatever its width, and on a phone it widened the page. */}
      <div className="sr-only">
        <table>
          <caption>
            Copy latency of {link.name} per {bucketSeconds / 60} minutes with copies, last 24 hours
          </caption>
          <thead>
            <tr>
              <th scope="col">Time</th>
              <th scope="col">Copies</th>
              <th scope="col">p50</th>
              <th scope="col">p99</th>
            </tr>
          </thead>
          <tbody>
            {withCopies.map((p) => (
              <tr key={p.at}>
                <th scope="row">{currentFormat().timeShort(p.at)}</th>
                <td>{p.copies}</td>
                <td>{formatMs(p.p50)}</td>
                <td>{formatMs(p.p99)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </figure>
  );
}
