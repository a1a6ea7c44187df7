/** Reconnection waits: 1 s, 2 s, 4 s … up to 30 s, each ±20 % so a fleet of browsers never retries in step. */
export const BACKOFF_BASE_MS = 1000;
export const BACKOFF_MAX_MS = 30_000;

export function backoffDelay(attempt: number, baseMs = BACKOFF_BASE_MS, random = Math.random): number {
  const exponential = Math.min(BACKOFF_MAX_MS, baseMs * 2 ** Math.max(0, attempt));
  return Math.round(exponential * (0.8 + 0.4 * random()));
}
