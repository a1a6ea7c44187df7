// @vitest-environment node
/**
 * The /users forms at a dealer's desk (issue 24 §3): every problem of the create form at once, the
 * initial deposit made exactly once after the account is created, and the details edit sending
 * only what changed.
 */
import { describe, expect, it, vi } from "vitest";

vi.mock("~/auth", () => ({ getFreshUser: async () => null, relogin: async () => {} }));

import { ApiError } from "~/api";
import { detailsChange } from "~/features/accounts/actions/AccountEditDialogs";
import { createAccountProblems } from "~/features/accounts/actions/CreateAccountDialog";
import { createAccountWithDeposit, type CreateAccountApi } from "~/features/accounts/actions/createAccount";
import { BalanceSubmission } from "~/features/accounts/actions/balanceSubmission";
import type { AccountRow, BalanceOperationResult } from "~/features/accounts/accountTypes";

const row = { platformId: "p-1", login: "10001", platformName: "Sim" } as AccountRow;
const done = { status: "done", balance: "500.00", credit: "0.00" } as unknown as BalanceOperationResult;
const input = { platformId: "p-1", group: "demo\\retail-usd", name: "Ann Lee", password: "Secret123" };
/** Confirming without waiting between tries. */
const quick = () => new BalanceSubmission<never, BalanceOperationResult>(undefined, { minTimeout: 0, maxRetryTime: 1000 });

describe("the create form", () => {
  it("shows every field's problem at once", () => {
    const problems = createAccountProblems(
      { platformId: "", group: "", name: "", email: "nope", phone: "", country: "", leverage: "0", password: "short", deposit: "999999999999999" },
      true,
    );
    expect(Object.keys(problems).sort()).toEqual(["deposit", "email", "group", "leverage", "name", "password", "platformId"]);
    expect(problems.deposit).toMatch(/too large/);
    expect(problems.platformId).toBe("Choose the platform");
    // Nothing in an API's path form ("body.group: …").
    for (const message of Object.values(problems)) expect(message).not.toMatch(/body\.|querystring\./);
    // A member who cannot move money is not asked for a deposit.
    expect(createAccountProblems({ ...filled(), deposit: "abc" }, false)).toEqual({});
    expect(createAccountProblems(filled(), true)).toEqual({});
  });
});

function filled() {
  return {
    platformId: "p-1",
    group: "demo\\retail-usd",
    name: "Ann",
    email: "",
    phone: "",
    country: "",
    leverage: "1:100",
    password: "Secret123",
    deposit: "500",
  };
}

describe("creating an account with an initial deposit", () => {
  it("creates the account once, then deposits once with one Idempotency-Key, asking again with the same key when the answer is lost", async () => {
    const keys: string[] = [];
    let lost = true;
    const api: CreateAccountApi = {
      create: vi.fn(async () => row),
      balanceOperation: vi.fn(async (_p, _l, _b, key: string) => {
        keys.push(key);
        if (lost) {
          lost = false;
          throw new ApiError(0, "Failed to fetch");
        }
        return done;
      }),
    };
    const created = await createAccountWithDeposit(api, input, "500", quick());
    expect(created).toEqual({ row, deposit: done, depositError: null });
    expect(api.create).toHaveBeenCalledTimes(1);
    expect(api.balanceOperation).toHaveBeenCalledWith("p-1", "10001", { type: "deposit", amount: "500", comment: "Initial deposit" }, keys[0]);
    expect(keys).toHaveLength(2);
    expect(new Set(keys).size).toBe(1);
  });

  it("makes no deposit when none is given, and a refused deposit leaves the account created, reported beside it", async () => {
    const api: CreateAccountApi = { create: vi.fn(async () => row), balanceOperation: vi.fn(async () => done) };
    expect(await createAccountWithDeposit(api, input, null)).toEqual({ row, deposit: null, depositError: null });
    expect(api.balanceOperation).not.toHaveBeenCalled();

    const refusal = new ApiError(422, "The trading platform refused the operation.");
    api.balanceOperation = vi.fn(async () => Promise.reject(refusal));
    const created = await createAccountWithDeposit(api, input, "500", quick());
    expect(created).toEqual({ row, deposit: null, depositError: refusal });
    expect(api.create).toHaveBeenCalledTimes(2);
  });
});

describe("editing the client's details", () => {
  const before = { name: "Ann Lee", email: "ann@example.com", phone: "", country: "Cyprus" };
  it("sends only what changed, trimmed, and shows every problem at once", () => {
    expect(detailsChange(before, { ...before, phone: " +357 22 000000 ", country: "Cyprus " })).toEqual({ patch: { phone: "+357 22 000000" }, problems: {} });
    const { problems } = detailsChange(before, { name: "", email: "nope", phone: "1".repeat(65), country: "" });
    expect(Object.keys(problems).sort()).toEqual(["email", "name", "phone"]);
  });
});
