/**
 * Reconnect delays: exponential, capped, with jitter so that many platforms (or many Toolbox
 * instances) that lost the same network do not all knock again at the same instant.
 * Delay before retry n (1-based) is uniform in [base·(1−jitter), base], base = min(max, initial·multiplier^(n−1)).
 */
export interface BackoffPolicy {
  initialMs: number;
  maxMs: number;
  multiplier: number;
  /** 0 = none, 1 = anywhere from 0 to the base delay. */
  jitter: number;
}

export const DEFAULT_BACKOFF: BackoffPolicy = { initialMs: 1000, maxMs: 60_000, multiplier: 2, jitter: 0.5 };

export function backoffDelay(retry: number, policy: BackoffPolicy, random: () => number): number {
  const base = Math.min(policy.maxMs, policy.initialMs * policy.multiplier ** Math.max(0, retry - 1));
  return Math.round(base * (1 - policy.jitter * random()));
}
