// @vitest-environment node
import { afterEach, describe, expect, it, vi } from "vitest";

vi.mock("~/auth", () => ({ getFreshUser: async () => null, relogin: async () => {} }));

import { ApiError } from "~/api";
import { amountProblem, generatePassword, leverageProblem, passwordProblem } from "~/features/accounts/actions/accountRules";
import { BalanceSubmission } from "~/features/accounts/actions/balanceSubmission";

// The server's answers (server/modules/accounts/balanceOperations.ts, tests/api/accounts.balance.test.ts).
const IN_PROGRESS = new ApiError(409, "The same operation is still in progress; retry in a moment");
const DIFFERENT_REQUEST = new ApiError(422, "This Idempotency-Key was already used for a different operation");
const NOT_ENOUGH_MONEY = new ApiError(422, "Cannot withdraw 900.00 USD: 50.00 USD can be withdrawn now.");
const PLATFORM_REFUSED = new ApiError(422, "The trading platform refused the operation.");
const NO_ANSWER = () => new ApiError(0, "Failed to fetch");
/** Confirming without waiting (the backoff itself is tested with fake timers below). */
const quick = { minTimeout: 0, maxRetryTime: 1000 };

type Body = { type: string; amount: string; comment?: string };
const deposit: Body = { type: "deposit", amount: "100.00" };

function keys() {
  let n = 0;
  return () => `key-${++n}`;
}

function deferred<T>() {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

describe("balance operation: one Idempotency-Key per operation", () => {
  afterEach(() => {
    vi.useRealTimers();
    vi.restoreAllMocks();
  });

  it("a double click while in flight sends once and both clicks get the one result", async () => {
    const s = new BalanceSubmission<Body, string>(keys());
    const answer = deferred<string>();
    const send = vi.fn(() => answer.promise);
    const first = s.submit(deposit, send);
    const second = s.submit(deposit, send);
    expect(s.pending).toBe(true);
    answer.resolve("done");
    await expect(first).resolves.toBe("done");
    await expect(second).resolves.toBe("done");
    expect(send).toHaveBeenCalledTimes(1);
    expect(s.pending).toBe(false);
  });

  it("network error, then 409, then the person submits again: the same key until a final answer (never a second deposit)", async () => {
    const s = new BalanceSubmission<Body, string>(keys(), quick);
    const send = vi
      .fn<(b: Body, key: string) => Promise<string>>()
      .mockRejectedValueOnce(NO_ANSWER())
      .mockRejectedValueOnce(IN_PROGRESS)
      .mockResolvedValueOnce("done");
    // The person clicks again after each failure, as they would.
    let result: string | undefined;
    for (let click = 0; click < 3 && result === undefined; click++) result = await s.submit(deposit, send).catch(() => undefined);
    expect(result).toBe("done");
    expect(send.mock.calls.map((c) => c[1])).toEqual(["key-1", "key-1", "key-1"]);
    expect(s.snapshot().phase).toBe("done");
  });

  it("asks again by itself after no answer or 409, showing it is still confirming, with a growing wait", async () => {
    vi.useFakeTimers();
    vi.spyOn(Math, "random").mockReturnValue(0);
    const s = new BalanceSubmission<Body, string>(keys());
    const phases: string[] = [];
    s.subscribe(() => phases.push(s.snapshot().phase));
    const send = vi
      .fn<(b: Body, key: string) => Promise<string>>()
      .mockRejectedValueOnce(NO_ANSWER())
      .mockRejectedValueOnce(IN_PROGRESS)
      .mockRejectedValueOnce(new ApiError(503, "The trading platform did not answer in time."))
      .mockResolvedValueOnce("done");
    const done = s.submit(deposit, send);
    await vi.advanceTimersByTimeAsync(0);
    expect(send).toHaveBeenCalledTimes(1);
    expect(s.snapshot().phase).toBe("confirming");
    // A second submission meanwhile joins the one being confirmed.
    expect(s.submit({ ...deposit, amount: "999.00" }, send)).toBe(done);
    await vi.advanceTimersByTimeAsync(1000);
    expect(send).toHaveBeenCalledTimes(2);
    await vi.advanceTimersByTimeAsync(1999);
    expect(send).toHaveBeenCalledTimes(2);
    await vi.advanceTimersByTimeAsync(1);
    expect(send).toHaveBeenCalledTimes(3);
    await vi.advanceTimersByTimeAsync(4000);
    await expect(done).resolves.toBe("done");
    expect(send.mock.calls.map((c) => c[1])).toEqual(["key-1", "key-1", "key-1", "key-1"]);
    expect(phases[0]).toBe("sending");
    expect(phases.at(-1)).toBe("done");
    expect(phases).toContain("confirming");
  });

  it("when confirming gives up (the network stays down) the operation stays in doubt, and checking again keeps the key", async () => {
    const s = new BalanceSubmission<Body, string>(keys(), { minTimeout: 0, retries: 2 });
    const send = vi.fn<(b: Body, key: string) => Promise<string>>().mockRejectedValue(NO_ANSWER());
    await expect(s.submit(deposit, send)).rejects.toThrow();
    expect(send).toHaveBeenCalledTimes(3);
    expect(s.uncertain).toBe(true);
    expect(s.snapshot()).toMatchObject({ phase: "uncertain", body: deposit });
    send.mockReset().mockResolvedValueOnce("done");
    await expect(s.submit({ ...deposit }, send)).resolves.toBe("done");
    expect(send.mock.calls.map((c) => c[1])).toEqual(["key-1"]);
    expect(s.uncertain).toBe(false);
  });

  it("keeps the key after an uncertain failure even if the request changes (the server refuses, never moves money twice)", async () => {
    const s = new BalanceSubmission<Body, string>(keys(), { minTimeout: 0, retries: 0 });
    const send = vi
      .fn<(b: Body, key: string) => Promise<string>>()
      .mockRejectedValueOnce(new ApiError(502, "Bad gateway"))
      .mockRejectedValueOnce(DIFFERENT_REQUEST);
    await expect(s.submit(deposit, send)).rejects.toThrow();
    await expect(s.submit({ ...deposit, amount: "200.00" }, send)).rejects.toThrow(/already used/);
    expect(send.mock.calls.map((c) => c[1])).toEqual(["key-1", "key-1"]);
    // Still in doubt: the first request may have been done.
    expect(s.uncertain).toBe(true);
    expect(s.snapshot()).toMatchObject({ phase: "uncertain", body: deposit });
  });

  it("a final refusal (422) after confirming ends the key: the next submission is a new operation", async () => {
    const s = new BalanceSubmission<Body, string>(keys(), quick);
    const send = vi
      .fn<(b: Body, key: string) => Promise<string>>()
      .mockRejectedValueOnce(NO_ANSWER())
      .mockRejectedValueOnce(PLATFORM_REFUSED)
      .mockResolvedValueOnce("done");
    await expect(s.submit(deposit, send)).rejects.toBe(PLATFORM_REFUSED);
    expect(s.uncertain).toBe(false);
    expect(s.snapshot()).toMatchObject({ phase: "ready", body: null, error: PLATFORM_REFUSED });
    await s.submit(deposit, send);
    expect(send.mock.calls.map((c) => c[1])).toEqual(["key-1", "key-1", "key-2"]);
  });

  it("takes a new key for a changed request after a definite refusal (nothing was done)", async () => {
    const s = new BalanceSubmission<Body, string>(keys(), quick);
    const send = vi.fn<(b: Body, key: string) => Promise<string>>().mockRejectedValueOnce(NOT_ENOUGH_MONEY).mockResolvedValueOnce("done");
    await expect(s.submit({ type: "withdrawal", amount: "900.00" }, send)).rejects.toThrow(/Cannot withdraw/);
    expect(s.uncertain).toBe(false);
    await s.submit({ type: "withdrawal", amount: "90.00" }, send);
    expect(send.mock.calls.map((c) => c[1])).toEqual(["key-1", "key-2"]);
  });

  it("trying the same request again after a refusal is a new operation with a new key (a refusal is the old key's final answer)", async () => {
    const s = new BalanceSubmission<Body, string>(keys(), quick);
    const send = vi.fn<(b: Body, key: string) => Promise<string>>().mockRejectedValueOnce(PLATFORM_REFUSED).mockResolvedValueOnce("done");
    await expect(s.submit(deposit, send)).rejects.toThrow();
    await s.submit({ amount: "100.00", type: "deposit" }, send);
    expect(send.mock.calls.map((c) => c[1])).toEqual(["key-1", "key-2"]);
  });

  it("a success is final: submitting again answers with it and sends nothing", async () => {
    const s = new BalanceSubmission<Body, string>(keys(), quick);
    const send = vi.fn(async () => "done");
    await s.submit(deposit, send);
    await expect(s.submit(deposit, send)).resolves.toBe("done");
    expect(send).toHaveBeenCalledTimes(1);
  });

  it("uses crypto.randomUUID by default: a new dialog, a new key", () => {
    const a = new BalanceSubmission();
    const b = new BalanceSubmission();
    expect(a.key).toMatch(/^[0-9a-f-]{36}$/);
    expect(a.key).not.toBe(b.key);
  });
});

describe("account action rules", () => {
  it("accepts positive amounts with at most two decimals", () => {
    expect(amountProblem("100")).toBeNull();
    expect(amountProblem("1,250.50")).toBeNull();
    expect(amountProblem("0")).not.toBeNull();
    expect(amountProblem("0.001")).not.toBeNull();
    expect(amountProblem("-5")).not.toBeNull();
    expect(amountProblem("abc")).not.toBeNull();
  });

  it("says an amount with too many digits is too large, not that it has too many decimals", () => {
    for (const typed of ["999999999999999", "999,999,999,999,999", "1000000000000.50"]) {
      const problem = amountProblem(typed);
      expect(problem).toMatch(/too large: at most 1,000,000,000\.00/);
      expect(problem).not.toMatch(/decimals/);
    }
    expect(amountProblem("1.234")).toMatch(/2 decimals/);
  });

  it("checks leverage and generates passwords every platform accepts", () => {
    expect(leverageProblem("1:500")).toBeNull();
    expect(leverageProblem("0")).not.toBeNull();
    expect(leverageProblem("2.5")).not.toBeNull();
    for (let i = 0; i < 50; i++) expect(passwordProblem(generatePassword())).toBeNull();
  });
});
