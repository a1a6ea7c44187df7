/**
 * The lists' short-lived cache (counts, group and platform names; issue 30): concurrent requests
 * share one load, a value answers for a few seconds, and then the last value keeps answering
 * while one new load runs, so requests never all wait on a count being made again.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { ShortLivedCache } from "../../../server/modules/accounts/accountListRepository.ts";

function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<T>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
}

describe("ShortLivedCache", () => {
  beforeEach(() => vi.useFakeTimers({ toFake: ["Date"], now: 1_000_000 }));
  afterEach(() => vi.useRealTimers());

  it("shares one load, then answers with the last value while one new load runs, then with the new value", async () => {
    const cache = new ShortLivedCache<number>();
    const loads = [deferred<number>(), deferred<number>()];
    let calls = 0;
    const load = () => loads[calls++]!.promise;

    const first = [cache.get("k", load), cache.get("k", load)];
    expect(calls).toBe(1);
    loads[0]!.resolve(10);
    expect(await Promise.all(first)).toEqual([10, 10]);

    vi.setSystemTime(1_000_000 + 3_500); // older than fresh: the next request starts one new load
    expect(await cache.get("k", load)).toBe(10); // answered at once, the new load still running
    expect(await cache.get("k", load)).toBe(10);
    expect(calls).toBe(2);
    loads[1]!.resolve(20);
    await loads[1]!.promise;
    expect(await cache.get("k", load)).toBe(20);
    expect(calls).toBe(2);
  });

  it("waits for a new load when the last value is too old, and keeps the last value when a new load fails", async () => {
    const cache = new ShortLivedCache<number>();
    expect(await cache.get("k", async () => 1)).toBe(1);
    vi.setSystemTime(1_000_000 + 3_500);
    const failing = deferred<number>();
    expect(await cache.get("k", () => failing.promise)).toBe(1);
    failing.reject(new Error("the count failed"));
    await failing.promise.catch(() => undefined);
    expect(await cache.get("k", async () => 2)).toBe(1); // the failed load is not kept; this one runs meanwhile
    vi.setSystemTime(1_000_000 + 60_000);
    expect(await cache.get("k", async () => 3)).toBe(3); // not asked for a minute: loaded and waited for
  });
});
