/**
 * Time as a dependency. The connectors, the simulated servers and the connection manager read
 * the time and set timers only through a Clock, so tests and benchmarks can run hours of
 * simulated trading, timeouts and backoff in milliseconds, deterministically.
 */
export interface Clock {
  now(): number;
  setTimeout(callback: () => void, ms: number): TimerHandle;
  clearTimeout(handle: TimerHandle): void;
}

export interface TimerHandle {
  readonly timerId: number;
}

let nextSystemTimerId = 1;
const systemTimers = new Map<number, ReturnType<typeof setTimeout>>();

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout(callback, ms) {
    const timerId = nextSystemTimerId++;
    systemTimers.set(
      timerId,
      setTimeout(() => {
        systemTimers.delete(timerId);
        callback();
      }, ms),
    );
    return { timerId };
  },
  clearTimeout(handle) {
    clearTimeout(systemTimers.get(handle.timerId));
    systemTimers.delete(handle.timerId);
  },
};

/**
 * The clock a platform's work runs on under supervision: a timer callback that throws never
 * reaches the event loop (where it would end the process for every organization); the error goes
 * to `onFault` — the platform's supervisor, which stops and restarts that platform alone.
 */
export function guardedClock(clock: Clock, onFault: (error: unknown) => void): Clock {
  return {
    now: () => clock.now(),
    setTimeout: (callback, ms) =>
      clock.setTimeout(() => {
        try {
          callback();
        } catch (error) {
          onFault(error);
        }
      }, ms),
    clearTimeout: (handle) => clock.clearTimeout(handle),
  };
}

export function sleep(clock: Clock, ms: number): Promise<void> {
  return new Promise((resolve) => clock.setTimeout(resolve, ms));
}

interface ManualTimer {
  timerId: number;
  at: number;
  callback: () => void;
}

/**
 * A clock that moves only when told. `advance` fires due timers in time order and lets promise
 * chains settle between them, so async code driven by it behaves as under real time.
 */
export class ManualClock implements Clock {
  private time: number;
  private nextId = 1;
  private timers: ManualTimer[] = [];

  /** Default start: Wednesday 10 January 2024, 12:00 UTC, when every market in the catalog is open. */
  constructor(start = Date.UTC(2024, 0, 10, 12, 0, 0)) {
    this.time = start;
  }

  now(): number {
    return this.time;
  }

  setTimeout(callback: () => void, ms: number): TimerHandle {
    const timer = { timerId: this.nextId++, at: this.time + Math.max(0, ms), callback };
    this.timers.push(timer);
    return { timerId: timer.timerId };
  }

  clearTimeout(handle: TimerHandle): void {
    this.timers = this.timers.filter((t) => t.timerId !== handle.timerId);
  }

  get pendingTimers(): number {
    return this.timers.length;
  }

  async advance(ms: number): Promise<void> {
    const target = this.time + ms;
    await settle();
    for (;;) {
      const next = this.nextDue(target);
      if (!next) break;
      this.timers = this.timers.filter((t) => t !== next);
      this.time = Math.max(this.time, next.at);
      next.callback();
      await settle();
    }
    this.time = target;
    await settle();
  }

  private nextDue(target: number): ManualTimer | undefined {
    let best: ManualTimer | undefined;
    for (const t of this.timers) {
      if (t.at <= target && (!best || t.at < best.at || (t.at === best.at && t.timerId < best.timerId))) best = t;
    }
    return best;
  }
}

/** Lets every pending promise continuation run (setImmediate fires after the microtask queue drains). */
export function settle(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
