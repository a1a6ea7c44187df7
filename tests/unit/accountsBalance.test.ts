import { describe, expect, it, vi } from "vitest";

vi.mock("~/auth", () => ({ getFreshUser: async () => null, relogin: async () => {} }));

import { ApiError } from "~/api";
import { amountProblem, generatePassword, leverageProblem, passwordProblem } from "~/features/accounts/actions/accountRules";
import { BalanceSubmission } from "~/features/accounts/actions/balanceSubmission";

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

describe("balance operation: one Idempotency-Key per dialog opening", () => {
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

  it("a retry after no answer reuses the key, so the server can answer with the first result", async () => {
    const s = new BalanceSubmission<Body, string>(keys());
    const send = vi.fn<(b: Body, key: string) => Promise<string>>().mockRejectedValueOnce(new ApiError(0, "Network error")).mockResolvedValueOnce("done");
    await expect(s.submit(deposit, send)).rejects.toThrow();
    expect(s.uncertain).toBe(true);
    await expect(s.submit({ ...deposit }, send)).resolves.toBe("done");
    expect(send.mock.calls.map((c) => c[1])).toEqual(["key-1", "key-1"]);
    expect(s.uncertain).toBe(false);
  });

  it("keeps the key after an uncertain failure even if the request changes (the server refuses, never moves money twice)", async () => {
    const s = new BalanceSubmission<Body, string>(keys());
    const send = vi.fn<(b: Body, key: string) => Promise<string>>().mockRejectedValueOnce(new ApiError(502, "Bad gateway")).mockRejectedValueOnce(new ApiError(422, "This Idempotency-Key was already used for a different operation"));
    await expect(s.submit(deposit, send)).rejects.toThrow();
    await expect(s.submit({ ...deposit, amount: "200.00" }, send)).rejects.toThrow(/already used/);
    expect(send.mock.calls.map((c) => c[1])).toEqual(["key-1", "key-1"]);
    // Still in doubt: the first request may have been done.
    expect(s.uncertain).toBe(true);
  });

  it("takes a new key for a changed request after a definite refusal (nothing was done)", async () => {
    const s = new BalanceSubmission<Body, string>(keys());
    const send = vi.fn<(b: Body, key: string) => Promise<string>>().mockRejectedValueOnce(new ApiError(409, "Not enough money")).mockResolvedValueOnce("done");
    await expect(s.submit({ type: "withdrawal", amount: "900.00" }, send)).rejects.toThrow();
    expect(s.uncertain).toBe(false);
    await s.submit({ type: "withdrawal", amount: "90.00" }, send);
    expect(send.mock.calls.map((c) => c[1])).toEqual(["key-1", "key-2"]);
  });

  it("trying the same request again after a refusal is a new operation with a new key (a refusal is the old key's final answer)", async () => {
    const s = new BalanceSubmission<Body, string>(keys());
    const send = vi.fn<(b: Body, key: string) => Promise<string>>().mockRejectedValueOnce(new ApiError(409, "Market closed")).mockResolvedValueOnce("done");
    await expect(s.submit(deposit, send)).rejects.toThrow();
    await s.submit({ amount: "100.00", type: "deposit" }, send);
    expect(send.mock.calls.map((c) => c[1])).toEqual(["key-1", "key-2"]);
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

  it("checks leverage and generates passwords every platform accepts", () => {
    expect(leverageProblem("1:500")).toBeNull();
    expect(leverageProblem("0")).not.toBeNull();
    expect(leverageProblem("2.5")).not.toBeNull();
    for (let i = 0; i < 50; i++) expect(passwordProblem(generatePassword())).toBeNull();
  });
});
