import { isValidLeverage, MAX_LEVERAGE, MIN_LEVERAGE, passwordProblem } from "@core/trading/account";

export { passwordProblem };

/** Leverages dealers pick most; any whole number in range can be typed. */
export const COMMON_LEVERAGES = [1, 10, 20, 30, 50, 100, 200, 300, 400, 500, 1000] as const;

export function leverageProblem(text: string): string | null {
  const value = Number(text.trim().replace(/^1:/, ""));
  return isValidLeverage(value) ? null : `A whole number from ${MIN_LEVERAGE} to ${MAX_LEVERAGE.toLocaleString("en")} (1:${MIN_LEVERAGE} to 1:${MAX_LEVERAGE.toLocaleString("en")}).`;
}

export const parseLeverage = (text: string) => Number(text.trim().replace(/^1:/, ""));

export function groupProblem(text: string): string | null {
  const group = text.trim();
  if (!group) return "Enter the group's name, e.g. real\\standard.";
  if (group.length > 64) return "Group names have at most 64 characters.";
  return null;
}

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
  return buffer[0] % n;
}

/** A money amount as typed: positive, at most two decimals (the platforms keep cents). */
export function amountProblem(text: string): string | null {
  const value = text.trim().replace(/,/g, "");
  if (!/^\d+(\.\d{1,2})?$/.test(value)) return "An amount like 100 or 250.50 (at most two decimals).";
  if (Number(value) <= 0) return "The amount must be more than zero.";
  if (Number(value) >= 1e12) return "That amount is too large.";
  return null;
}

export const normalizeAmount = (text: string) => text.trim().replace(/,/g, "");
