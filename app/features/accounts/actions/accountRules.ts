import { AccountNameSchema, CountrySchema, EmailSchema, GroupNameSchema, LeverageSchema, PasswordSchema, PhoneSchema } from "@core/schemas/accounts";
import { BalanceAmountSchema } from "@core/schemas/balanceOperations";
import type { z } from "zod";

/**
 * The forms' checks are the API's own schemas (core/schemas/), so a value the form accepts is
 * one the API accepts, with the same words; the API stays the judge.
 */
function problemOf(schema: z.ZodType, value: unknown): string | null {
  const result = schema.safeParse(value);
  return result.success ? null : (result.error.issues[0]?.message ?? "This value is not valid.");
}

export const passwordProblem = (password: string) => problemOf(PasswordSchema, password);
export const nameProblem = (name: string) => problemOf(AccountNameSchema, name);
export const emailProblem = (email: string) => problemOf(EmailSchema, email.trim());
export const phoneProblem = (phone: string) => problemOf(PhoneSchema, phone);
export const countryProblem = (country: string) => problemOf(CountrySchema, country);

/** Leverages dealers pick most; any whole number in range can be typed. */
export const COMMON_LEVERAGES = [1, 10, 20, 30, 50, 100, 200, 300, 400, 500, 1000] as const;

/** "100" or "1:100"; anything else is NaN, which the leverage rule refuses. */
export const parseLeverage = (text: string) => (text.trim() === "" ? Number.NaN : Number(text.trim().replace(/^1:/, "")));

export const leverageProblem = (text: string) => problemOf(LeverageSchema, parseLeverage(text));

export const groupProblem = (text: string) => problemOf(GroupNameSchema, text);

/** A password every platform accepts (MetaTrader 5's rule): 12 characters mixing cases and digits. */
export function generatePassword(random: (n: number) => number = cryptoRandom): string {
  const lower = "abcdefghijkmnpqrstuvwxyz";
  const upper = "ABCDEFGHJKLMNPQRSTUVWXYZ";
  const digits = "23456789";
  const all = lower + upper + digits;
  const pick = (set: string) => set[random(set.length)];
  const chars = [pick(lower), pick(upper), pick(digits), ...Array.from({ length: 9 }, () => pick(all))];
  for (let i = chars.length - 1; i > 0; i--) {
    const j = random(i + 1);
    [chars[i], chars[j]] = [chars[j], chars[i]];
  }
  return chars.join("");
}

function cryptoRandom(n: number): number {
  const buffer = new Uint32Array(1);
  crypto.getRandomValues(buffer);
  return (buffer[0] ?? 0) % n;
}

/** An amount as typed ("1,250.50"), as the API takes it ("1250.50"). */
export const normalizeAmount = (text: string) => text.trim().replace(/,/g, "");

/** A money amount as typed: positive, at most two decimals, at most what one operation may move. */
export const amountProblem = (text: string) => problemOf(BalanceAmountSchema, normalizeAmount(text));
