import pRetry from "p-retry";

/**
 * The app's one backoff (p-retry): waits of 1 s, 2 s, 4 s … up to 30 s, each multiplied by a
 * random 1–2 so a fleet of browsers never retries in step. Everything in the browser that tries
 * again (the live-state stream, preflight, a balance operation in doubt) goes through `retry`.
 */
export const BACKOFF = { minTimeout: 1000, factor: 2, maxTimeout: 30_000, randomize: true } as const;

export interface RetryOptions {
  /** How many tries after the first (default: no limit). */
  retries?: number;
  /** Stop trying after this long (ms), counting from the first try. */
  maxRetryTime?: number;
  /** The first wait (ms); later ones grow by `factor` up to `maxTimeout`. */
  minTimeout?: number;
  factor?: number;
  maxTimeout?: number;
  randomize?: boolean;
  /** Stops the waiting: the promise rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Is this failure worth another try? Others end the retries at once (default: all are). */
  retryIf?: (error: Error) => boolean;
  /** Called after a failed try that will be tried again, before the wait. */
  onRetry?: (error: Error, attempt: number) => void;
}

/** Runs `task` until it succeeds, waiting longer after each failure (see BACKOFF). */
export function retry<T>(task: (attempt: number) => Promise<T>, options: RetryOptions = {}): Promise<T> {
  const { retryIf = () => true, onRetry, retries = Number.POSITIVE_INFINITY, ...timing } = options;
  // p-retry never retries a TypeError other than a network error (it takes it for a bug in the
  // code); here `retryIf` alone decides, so TypeErrors pass through it in a wrapper.
  const attempt = (n: number) =>
    task(n).catch((error: unknown) => {
      throw error instanceof TypeError ? new Wrapped(error) : error;
    });
  return pRetry(attempt, {
    ...BACKOFF,
    ...timing,
    retries,
    // p-retry asks this only while tries and time are left, so it is where a retry is decided.
    shouldRetry: ({ error, attemptNumber }) => {
      const original = unwrap(error);
      const again = retryIf(original);
      if (again) onRetry?.(original, attemptNumber);
      return again;
    },
  }).catch((error: unknown) => {
    throw unwrap(error);
  });
}

class Wrapped extends Error {
  constructor(readonly original: TypeError) {
    super(original.message);
  }
}

function unwrap(error: unknown) {
  return error instanceof Wrapped ? error.original : (error as Error);
}
