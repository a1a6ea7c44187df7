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
  // Each case pins the words a person reads, so a message that changes on one side, or on both
  // (the form and the API share the schemas), is seen here.
  it("limits the group name to one length, 64, in the form and the API alike, with pinned words", () => {
    expect(GROUP_NAME_MAX).toBe(64);
    const cases: [string, string | null][] = [
      ["real\\standard", null],
      ["g".repeat(64), null],
      ["g".repeat(65), "group is at most 64 characters"],
      ["", "Choose a group"],
      ["   ", "Choose a group"],
      ["bad\u0007group", "group cannot contain control characters"],
    ];
    for (const [group, message] of cases) {
      expect(groupProblem(group), JSON.stringify(group)).toBe(message);
      expect(apiProblem(PatchAccountSchema.safeParse({ group })), JSON.stringify(group)).toBe(message);
    }
  });

  it("checks a new account's name, e-mail, leverage and password as the API does, with pinned words", () => {
    const base = { platformId: "11111111-1111-4111-8111-111111111111", group: "real", name: "Ann Lee", leverage: 100, password: "Secret123" };
    const cases: [keyof typeof base | "email", string, (text: string) => string | null, string | null][] = [
      ["name", "", nameProblem, "Enter the client's name"],
      ["name", "n".repeat(129), nameProblem, "name is at most 128 characters"],
      ["email", "not-an-email", emailProblem, "email must be an e-mail address"],
      ["email", "ann@example.com", emailProblem, null],
      ["password", "short", passwordProblem, "The password must be 8 to 16 characters long."],
      ["password", "alllowercase1", passwordProblem, "The password must mix lower-case letters, upper-case letters and digits."],
      ["leverage", "0", leverageProblem, "leverage must be from 1 to 10000"],
      ["leverage", "1:20000", leverageProblem, "leverage must be from 1 to 10000"],
      ["leverage", "1:500", leverageProblem, null],
    ];
    for (const [field, typed, problem, message] of cases) {
      const value = field === "leverage" ? parseLeverage(typed) : typed;
      expect(problem(typed), `${field} ${typed}`).toBe(message);
      expect(apiProblem(CreateAccountSchema.safeParse({ ...base, [field]: value })), `${field} ${typed}`).toBe(message);
    }
  });

  it("refuses an amount over what one operation may move, with the API's words, pinned", () => {
    const malformed = 'amount must be a positive amount with at most 2 decimals, such as "100" or "99.95"';
    const overBound = "amount is too large: at most 1,000,000,000.00 in one operation; split a larger movement into several";
    const cases: [string, string | null][] = [
      ["100", null],
      ["1,250.50", null],
      ["0", "amount must be greater than zero"],
      ["0.001", malformed],
      ["-5", malformed],
      ["abc", malformed],
      ["1,000,000,000.00", null],
      ["1,000,000,000.01", overBound],
      ["999999999999.99", overBound],
    ];
    for (const [typed, message] of cases) {
      // The API checks the form with its schema (400) and the bound with the same words as a refusal (422).
      const amount = normalizeAmount(typed);
      expect(amountProblem(typed), typed).toBe(message);
      expect(apiProblem(BalanceOperationBodySchema.safeParse({ type: "deposit", amount })) ?? operationAmountProblem(amount), typed).toBe(message);
    }
    expect(MAX_OPERATION_AMOUNT_TEXT).toBe("1,000,000,000.00");
  });
});
