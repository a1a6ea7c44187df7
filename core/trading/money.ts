/**
 * Money is an integer count of hundredths of the account currency ("cents", whatever the
 * currency).
 *
 * Why integers and not floats or a decimal library: a balance is the sum of thousands of
 * operations, and binary floats drift (0.1 + 0.2 !== 0.3) where integers never do; the platforms
 * round account money to two decimals anyway, so nothing is lost. JavaScript numbers hold
 * integers exactly up to 2^53 (9e13 USD in cents), far above any account, and stay plain numbers
 * through JSON, databases and React.
 * Why one scale for every currency: MetaTrader and Match-Trader keep account money with two
 * decimals by default, a JPY amount in hundredths is still exact, and a single scale means no
 * codec or sum ever has to know an account's currency. Accounts in coins with 8 decimals are not
 * supported; they would need a second scale.
 * Conversions at the edges: `moneyFromDecimal` for exact strings (user input, Match-Trader),
 * `roundToMinor` for platform doubles and computed profit, `moneyToDecimal` for display.
 */
export type Money = number;

export const MONEY_DIGITS = 2;

/**
 * The one bound of money in Toolbox, in minor units.
 *
 * - One balance operation (deposit, withdrawal, credit in or out) moves at most 1,000,000,000.00:
 *   MT5 refuses more with 4005 TRADE_MAX_MONEY (docs/connectors.md#vendor-mt5), and the API refuses it
 *   before asking any platform.
 * - An account's balance, credit and equity stay within ±1,000,000,000,000.00 (1e14 minor units).
 *   That leaves 90× headroom below 2^53 (9.007e15), so one account's sums (balance + credit +
 *   floating profit) are always exact integers. A simulated server refuses an operation that
 *   would take a figure past it, as a real server does; totals over many accounts are summed in
 *   the database (numeric) or in BigInt, never as plain numbers.
 */
export const MAX_OPERATION_AMOUNT: Money = 100_000_000_000;
export const MAX_ACCOUNT_MONEY: Money = 100_000_000_000_000;

/** Within the account bound (see MAX_ACCOUNT_MONEY). */
export function withinAccountBound(value: Money): boolean {
  return Math.abs(value) <= MAX_ACCOUNT_MONEY;
}

export function isMoney(value: unknown): value is Money {
  return typeof value === "number" && Number.isSafeInteger(value);
}

export function assertMoney(value: number, what = "amount"): Money {
  if (!Number.isSafeInteger(value)) throw new RangeError(`${what} is not a whole number of minor units: ${value}`);
  return value;
}

const DECIMAL = /^([+-])?(\d+)(?:\.(\d*))?$/;

/**
 * Exact parse of a decimal string ("100.05" → 10005 with 2 digits). More fraction digits than
 * the currency has is an error, not a silent rounding: a user who typed 0.005 meant something.
 */
export function moneyFromDecimal(value: string, digits = MONEY_DIGITS): Money {
  const match = DECIMAL.exec(value.trim());
  if (!match) throw new RangeError(`Not a decimal amount: "${value}"`);
  const [, sign, whole, fraction = ""] = match;
  const trimmed = fraction.replace(/0+$/, "");
  if (trimmed.length > digits) throw new RangeError(`"${value}" has more than ${digits} decimal places`);
  const minor = Number(whole + trimmed.padEnd(digits, "0"));
  const result = sign === "-" ? -minor : minor;
  return assertMoney(result === 0 ? 0 : result, `"${value}"`);
}

/** 10005 with 2 digits → "100.05"; always the currency's full digits, never an exponent. */
export function moneyToDecimal(minor: Money, digits = MONEY_DIGITS): string {
  assertMoney(minor);
  const negative = minor < 0;
  const text = String(Math.abs(minor)).padStart(digits + 1, "0");
  const whole = digits === 0 ? text : text.slice(0, -digits);
  const fraction = digits === 0 ? "" : `.${text.slice(-digits)}`;
  return `${negative ? "-" : ""}${whole}${fraction}`;
}

/** For messages a person reads: 100000000000000 → "1,000,000,000,000.00" (thousands grouped, full digits). */
export function moneyToDisplay(minor: Money, digits = MONEY_DIGITS): string {
  const text = moneyToDecimal(minor, digits);
  const [whole = "", fraction] = text.replace(/^-/, "").split(".");
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  return `${minor < 0 ? "-" : ""}${grouped}${fraction === undefined ? "" : `.${fraction}`}`;
}

/** Major units as a double, for platforms whose wire format is a float (MT4, MT5). */
export function moneyToNumber(minor: Money, digits = MONEY_DIGITS): number {
  return Number(moneyToDecimal(minor, digits));
}

/**
 * A float amount in major units (a platform double, a computed profit) to minor units, rounding
 * half away from zero as MetaTrader does. `toPrecision(15)` first removes binary noise such as
 * 1.005 * 100 = 100.49999999999999, which would otherwise round the wrong way.
 */
export function roundToMinor(amount: number, digits = MONEY_DIGITS): Money {
  if (!Number.isFinite(amount)) throw new RangeError(`Not a finite amount: ${amount}`);
  const scaled = amount * 10 ** digits;
  const cleaned = Math.abs(scaled) < 1e15 ? Number(scaled.toPrecision(15)) : scaled;
  const rounded = Math.sign(cleaned) * Math.round(Math.abs(cleaned));
  return assertMoney(rounded === 0 ? 0 : rounded);
}

export function sumMoney(amounts: Iterable<Money>): Money {
  let total = 0;
  for (const amount of amounts) total += amount;
  return assertMoney(total, "sum");
}

/** The part of `total` that `part / whole` represents; the complementary part is `total - result`, so splits always add up exactly. */
export function shareOfMoney(total: Money, part: number, whole: number): Money {
  if (whole <= 0) throw new RangeError("whole must be positive");
  return roundToMinor((total * part) / whole, 0);
}
