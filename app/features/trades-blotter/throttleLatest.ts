/**
 * Passes values on at most once per `ms`: the first at once, then the latest of each period at its
 * end (nothing is lost but the values in between, which the latest replaces). For figures a
 * screen redraws: the blotter's side panel and its chart.
 */
export interface LatestThrottle<T> {
  push(value: T): void;
  dispose(): void;
}

export function throttleLatest<T>(deliver: (value: T) => void, ms: number): LatestThrottle<T> {
  let timer: ReturnType<typeof setTimeout> | null = null;
  let waiting: { value: T } | null = null;
  const open = () => {
    timer = setTimeout(() => {
      timer = null;
      if (!waiting) return;
      const { value } = waiting;
      waiting = null;
      deliver(value);
      open();
    }, ms);
  };
  return {
    push(value) {
      if (timer) {
        waiting = { value };
        return;
      }
      deliver(value);
      open();
    },
    dispose() {
      if (timer) clearTimeout(timer);
      timer = null;
      waiting = null;
    },
  };
}
