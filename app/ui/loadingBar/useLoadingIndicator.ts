import { useEffect, useRef, useState } from "react";

/** docs/requirements.md#r-constants loading bar constants (ms, and px for the height). */
export const LOADING_BAR = { throttle: 200, duration: 2000, hide: 500, resetDelay: 400, height: 3 } as const;

/**
 * Progress that rises quickly, then slows, never reaching 100 % on its own: about 70 % after
 * `duration`. Finishing jumps it to 100 %.
 */
export function estimatedProgress(duration: number, elapsed: number): number {
  return (200 / Math.PI) * Math.atan((elapsed / duration) * 2);
}

export interface LoadingIndicator {
  visible: boolean;
  /** 0–100. */
  progress: number;
}

/**
 * Turns a loading flag into the bar's state: nothing for loads shorter than the throttle, then a
 * growing bar; when loading ends it fills, hides after `hide` ms and resets `resetDelay` ms later.
 */
export function useLoadingIndicator(loading: boolean): LoadingIndicator {
  const [state, setState] = useState<LoadingIndicator>({ visible: false, progress: 0 });
  const shown = useRef(false);

  useEffect(() => {
    const timers: ReturnType<typeof setTimeout>[] = [];
    let frame = 0;
    if (loading) {
      timers.push(
        setTimeout(() => {
          shown.current = true;
          const start = performance.now();
          const step = () => {
            setState({ visible: true, progress: estimatedProgress(LOADING_BAR.duration, performance.now() - start) });
            frame = requestAnimationFrame(step);
          };
          step();
        }, LOADING_BAR.throttle),
      );
    } else if (shown.current) {
      shown.current = false;
      setState({ visible: true, progress: 100 });
      timers.push(
        setTimeout(() => {
          setState((s) => ({ ...s, visible: false }));
          timers.push(setTimeout(() => setState({ visible: false, progress: 0 }), LOADING_BAR.resetDelay));
        }, LOADING_BAR.hide),
      );
    }
    return () => {
      timers.forEach(clearTimeout);
      cancelAnimationFrame(frame);
    };
  }, [loading]);

  return state;
}
