import type { Money } from "./money.ts";
import type { NativeAccountRef } from "./native.ts";
import type { Timestamp } from "./platform.ts";

/** OK, margin call or stop out: where the margin level sits against the group's levels. */
export type MarginState = "ok" | "marginCall" | "stopOut";

/**
 * A trading account ("user" in MetaTrader's words), normalized across platforms. Money fields
 * are integer minor units of `currency`. Passwords and OTP secrets are write-only: no type here
 * can carry them back.
 */
export interface Account {
  /** The number a dealer knows the account by (numeric on every platform here). */
  login: string;
  group: string;
  name: string;
  email: string;
  phone: string;
  country: string;
  city: string;
  address: string;
  comment: string;
  registration: Timestamp;
  lastAccess: Timestamp | null;
  leverage: number;
  currency: string;
  balance: Money;
  credit: Money;
  equity: Money;
  margin: Money;
  freeMargin: Money;
  /** Equity / margin in percent with two decimals; null while there is no margin in use. */
  marginLevel: number | null;
  marginState: MarginState;
  /** May log in at all. */
  enabled: boolean;
  /** May log in but not trade ("trading disabled"). */
  readOnly: boolean;
  changePasswordAllowed: boolean;
  otpEnabled: boolean;
  agentAccount: string | null;
  leadSource: string;
  native: NativeAccountRef;
}

/** The money figures that move with prices. */
export type AccountFigures = Pick<Account, "balance" | "credit" | "equity" | "margin" | "freeMargin" | "marginLevel" | "marginState">;

/** What can be set when creating an account. The password is write-only. */
export interface NewAccount {
  /** Requested login; the platform picks the next free one when absent. */
  login?: string;
  group: string;
  name: string;
  email?: string;
  phone?: string;
  country?: string;
  city?: string;
  address?: string;
  comment?: string;
  leverage?: number;
  enabled?: boolean;
  readOnly?: boolean;
  leadSource?: string;
  password: string;
  investorPassword?: string;
}

/** Fields an update may change; absent fields stay as they are. */
export interface AccountPatch {
  group?: string;
  leverage?: number;
  name?: string;
  email?: string;
  phone?: string;
  country?: string;
  city?: string;
  address?: string;
  comment?: string;
  enabled?: boolean;
  readOnly?: boolean;
  changePasswordAllowed?: boolean;
  /** Only `false` is accepted: OTP is turned on by the client, a dealer can only reset it. */
  otpEnabled?: false;
  leadSource?: string;
}

export type PasswordKind = "main" | "investor";

export const MIN_LEVERAGE = 1;
export const MAX_LEVERAGE = 10_000;

export function isValidLeverage(leverage: number): boolean {
  return Number.isInteger(leverage) && leverage >= MIN_LEVERAGE && leverage <= MAX_LEVERAGE;
}

/**
 * MetaTrader 5's rule, the strictest of the three platforms: 8 to 16 characters mixing lower
 * case, upper case and digits. Applying it everywhere means a password accepted here works on
 * any server.
 */
export function passwordProblem(password: string): string | null {
  if (password.length < 8 || password.length > 16) return "The password must be 8 to 16 characters long.";
  if (!/[a-z]/.test(password) || !/[A-Z]/.test(password) || !/\d/.test(password))
    return "The password must mix lower-case letters, upper-case letters and digits.";
  return null;
}
