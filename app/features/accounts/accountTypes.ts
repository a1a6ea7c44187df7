import type { MarginState } from "@core/trading/account";
import type { BalanceOperationType } from "@core/trading/balance";
import type { JournalLevel } from "@core/trading/journal";
import type { TradePlatformType } from "@core/trading/platform";

/**
 * What GET /api/accounts answers per row (scratch/issue3-contract.md, "Accounts"). Money is a
 * decimal string ("1250.50"), exact; it is only ever formatted, never computed with, here.
 */
export interface AccountRow {
  platformId: string;
  platformName: string;
  platformType: TradePlatformType;
  login: string;
  group: string;
  name: string;
  email: string;
  leverage: number;
  currency: string;
  balance: string;
  credit: string;
  equity: string;
  margin: string;
  freeMargin: string;
  /** Percent with two decimals ("253.40"); null while no margin is used. */
  marginLevel: string | null;
  marginState: MarginState;
  enabled: boolean;
  readOnly: boolean;
  registration: string;
  lastAccess: string | null;
}

export interface AccountDetail extends AccountRow {
  phone: string;
  country: string;
  city: string;
  address: string;
  comment: string;
  /** When the mirror last heard of the account. */
  updatedAt?: string;
  /** The figures come from the platform just now (false: the last mirrored ones; the platform did not answer). */
  live?: boolean;
}

export interface AccountPage {
  items: AccountRow[];
  total: number;
}

/** An open position (volume in lots and money as decimal strings; `native` holds the platform's own ids). */
export interface PositionRow {
  id: string;
  login: string;
  symbol: string;
  side: "buy" | "sell";
  volume: string;
  openTime: string;
  openPrice: number;
  currentPrice: number;
  sl: number | null;
  tp: number | null;
  profit: string;
  swap: string;
  comment: string;
  reason: string;
  native: Record<string, unknown>;
}

export interface DealRow {
  id: string;
  login: string;
  time: string;
  action: "buy" | "sell" | "balance" | "credit";
  entry: "in" | "out" | null;
  positionId: string | null;
  symbol: string | null;
  volume: string;
  price: number;
  profit: string;
  commission: string;
  swap: string;
  comment: string;
  reason: string;
  native: Record<string, unknown>;
}

export interface JournalRow {
  id: string;
  time: string;
  level: JournalLevel;
  sourceIp: string | null;
  login: string | null;
  message: string;
}

export interface BalanceOperationResult {
  operationId: string;
  type: BalanceOperationType;
  amount: string;
  balance: string;
  credit: string;
  at: string;
}

/** `<platformId>:<login>`: how an account is named in the URL (/users?account=…). */
export function accountKey(a: { platformId: string; login: string }): string {
  return `${a.platformId}:${a.login}`;
}

export function parseAccountKey(key: string | null): { platformId: string; login: string } | null {
  if (!key) return null;
  const colon = key.lastIndexOf(":");
  if (colon <= 0 || colon === key.length - 1) return null;
  return { platformId: key.slice(0, colon), login: key.slice(colon + 1) };
}
