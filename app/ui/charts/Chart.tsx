import { useEffect, useRef } from "react";
import type uPlot from "uplot";
import { cn } from "../cn";
import { useColorMode } from "../colorMode";
import { chartTheme, type ChartTheme } from "./theme";

export type UPlot = typeof uPlot;
/** Everything about a chart but its size, built with the theme's colours and the uPlot class (for its path builders). */
export type ChartOptions = (theme: ChartTheme, lib: UPlot) => Omit<uPlot.Options, "width" | "height">;

interface ChartProps {
  /** Keep it stable (module level or useCallback): a new function draws the chart anew. */
  options: ChartOptions;
  /** New data is drawn in place (live series), without building the chart again. */
  data: uPlot.AlignedData;
  height: number;
  className?: string;
  /**
   * The cursor (give `cursor: { show: true }` in the options): called with the data index under
   * the pointer, or null once it leaves. Need not be stable.
   */
  onCursor?: (index: number | null) => void;
  /** A data index to put the cursor on from outside (keyboard reading), or null to leave it be. */
  cursorAt?: number | null;
}

/**
 * The canvas of a uPlot chart, sized to its box and redrawn in the other colour mode. It is
 * decoration for sighted readers (aria-hidden): every chart built on it gives screen readers its
 * own text alternative. uPlot loads lazily, in the browser only, once the box comes into view (a
 * chart below the fold costs a first screen nothing: issue 30); until then the box keeps its size.
 */
export function Chart({ options, data, height, className, onCursor, cursorAt = null }: ChartProps) {
  const box = useRef<HTMLDivElement>(null);
  const chart = useRef<uPlot | null>(null);
  const latest = useRef(data);
  const colorMode = useColorMode((s) => s.resolved);
  const cursorListener = useRef(onCursor);
  useEffect(() => {
    cursorListener.current = onCursor;
  }, [onCursor]);

  // Declared first, so on the first render the chart below is built with the data already in place.
  useEffect(() => {
    latest.current = data;
    chart.current?.setData(data);
  }, [data]);

  useEffect(() => {
    const element = box.current;
    if (!element || !canDraw()) return;
    let cancelled = false;
    let observer: ResizeObserver | undefined;
    const seen = whenInView(element);
    void seen.promise
      .then(() => (cancelled ? null : import("./uplot")))
      .then((lib) => {
        if (!lib) return;
        const UPlot = lib.default;
        if (cancelled) return;
        const size = () => ({ width: Math.max(1, Math.floor(element.clientWidth)), height });
        const built = options(chartTheme(element), UPlot);
        const hooks: uPlot.Hooks.Arrays = {
          ...built.hooks,
          setCursor: [...(built.hooks?.setCursor ?? []), (u: uPlot) => cursorListener.current?.(u.cursor.idx ?? null)],
        };
        const u = new UPlot({ ...built, hooks, ...size() }, latest.current, element);
        chart.current = u;
        observer = new ResizeObserver(() => u.setSize(size()));
        observer.observe(element);
      });
    return () => {
      cancelled = true;
      seen.stop();
      observer?.disconnect();
      chart.current?.destroy();
      chart.current = null;
    };
  }, [options, height, colorMode]);

  // Keyboard reading: move the drawn cursor to the index chosen outside (its hook reports it back).
  useEffect(() => {
    const u = chart.current;
    if (!u || cursorAt === null || u.cursor.idx === cursorAt) return;
    const x = u.data[0][cursorAt];
    if (x === undefined) return;
    u.setCursor({ left: u.valToPos(x, "x"), top: u.bbox.height / devicePixelRatio / 2 });
  }, [cursorAt]);

  // Its width comes from the page, never from the canvas drawn at the last width (inline-size
  // containment): otherwise a window made narrower, or a tablet turned, kept the chart as wide as
  // before and the whole page scrolled sideways (195 px on the overview from 1440 px to a phone's 390).
  return <div ref={box} aria-hidden className={cn("w-full overflow-hidden [contain:inline-size]", className)} style={{ height }} />;
}

/** A browser with a 2D canvas (not the server render, not a DOM emulation without one). */
function canDraw(): boolean {
  return typeof window !== "undefined" && typeof ResizeObserver !== "undefined" && !navigator.userAgent.includes("jsdom");
}

/** Resolves once `element` is in (or within 200 px of) the viewport; at once without IntersectionObserver. */
function whenInView(element: Element): { promise: Promise<void>; stop(): void } {
  if (typeof IntersectionObserver === "undefined") return { promise: Promise.resolve(), stop: () => undefined };
  let observer: IntersectionObserver | undefined;
  const promise = new Promise<void>((resolve) => {
    observer = new IntersectionObserver(
      (entries) => {
        if (!entries.some((e) => e.isIntersecting)) return;
        observer?.disconnect();
        resolve();
      },
      { rootMargin: "200px" },
    );
    observer.observe(element);
  });
  return { promise, stop: () => observer?.disconnect() };
}
