// @vitest-environment node
/**
 * The accounts forms check with the API's own schemas (core/schemas/): what the form accepts the
 * API accepts, what it refuses it refuses with the API's words, at the same limits.
 */
import { describe, expect, it } from "vitest";
import { CreateAccountSchema, GROUP_NAME_MAX, PatchAccountSchema } from "@core/schemas/accounts";
import { BalanceOperationBodySchema, MAX_OPERATION_AMOUNT_TEXT, operationAmountProblem } from "@core/schemas/balanceOperations";
import {
  amountProblem,
  emailProblem,
  groupProblem,
  leverageProblem,
  nameProblem,
  normalizeAmount,
  parseLeverage,
  passwordProblem,
} from "~/features/accounts/actions/accountRules";

const apiProblem = (result: { success: boolean; error?: { issues: { message: string }[] } }) => (result.success ? null : result.error!.issues[0]!.message);

describe("accounts forms and API share one contract", () => {
  it("limits the group name to one length, 64, in the form and the API alike", () => {
    expect(GROUP_NAME_MAX).toBe(64);
    for (const group of ["real\\standard", "g".repeat(64), "g".repeat(65), "", "   ", "bad\u0007group"]) {
      const api = apiProblem(PatchAccountSchema.safeParse({ group }));
      expect(groupProblem(group), JSON.stringify(group)).toBe(api);
    }
    expect(groupProblem("g".repeat(65))).toBe("group is at most 64 characters");
  });

  it("checks a new account's name, e-mail, leverage and password as the API does", () => {
    const base = { platformId: "11111111-1111-4111-8111-111111111111", group: "real", name: "Ann Lee", leverage: 100, password: "Secret123" };
    const cases: [keyof typeof base | "email", string, (text: string) => string | null][] = [
      ["name", "", nameProblem],
      ["name", "n".repeat(129), nameProblem],
      ["email", "not-an-email", emailProblem],
      ["email", "ann@example.com", emailProblem],
      ["password", "short", passwordProblem],
      ["password", "alllowercase1", passwordProblem],
      ["leverage", "0", leverageProblem],
      ["leverage", "1:20000", leverageProblem],
      ["leverage", "1:500", leverageProblem],
    ];
    for (const [field, typed, problem] of cases) {
      const value = field === "leverage" ? parseLeverage(typed) : typed;
      const api = apiProblem(CreateAccountSchema.safeParse({ ...base, [field]: value }));
      expect(problem(typed), `${field} ${typed}`).toBe(api);
    }
  });

  it("refuses an amount over what one operation may move, with the API's words", () => {
    for (const typed of ["100", "1,250.50", "0", "0.001", "-5", "abc", "1,000,000,000.00", "1,000,000,000.01", "999999999999.99"]) {
      // The API checks the form with its schema (400) and the bound with the same words as a refusal (422).
      const amount = normalizeAmount(typed);
      const api = apiProblem(BalanceOperationBodySchema.safeParse({ type: "deposit", amount })) ?? operationAmountProblem(amount);
      expect(amountProblem(typed), typed).toBe(api);
    }
    expect(MAX_OPERATION_AMOUNT_TEXT).toBe("1,000,000,000.00");
    expect(amountProblem("1,000,000,000.00")).toBeNull();
    expect(amountProblem("1000000000.01")).toMatch(/at most 1,000,000,000\.00 in one operation/);
  });
});
