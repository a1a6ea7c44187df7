import type { Clock } from "../clock.ts";

export class TimeoutError extends Error {
  constructor(readonly ms: number) {
    super(`Timed out after ${ms} ms`);
  }
}

/** Races a promise against the clock; the loser is ignored, never cancelled (a request already sent may still land). */
export function withTimeout<T>(promise: Promise<T>, ms: number, clock: Clock): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = clock.setTimeout(() => reject(new TimeoutError(ms)), ms);
    promise.then(
      (value) => {
        clock.clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clock.clearTimeout(timer);
        // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- passes the promise's own rejection on unchanged
        reject(error);
      },
    );
  });
}
