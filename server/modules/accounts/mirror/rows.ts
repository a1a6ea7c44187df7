/**
 * Between the normalized model (money in integer cents, times in epoch milliseconds) and the
 * mirror's columns (numeric(20,2), timestamptz). Money crosses as exact decimal strings both ways;
 * no float ever carries an amount.
 */
import { moneyToDecimal, type Account } from "../../../../core/trading/index.ts";

/** One account as the bulk upsert takes it (column order of store.ts). */
export interface AccountColumns {
  login: string;
  group: string;
  name: string;
  email: string;
  phone: string;
  country: string;
  city: string;
  address: string;
  comment: string;
  leverage: number;
  currency: string;
  balance: string;
  credit: string;
  equity: string;
  margin: string;
  freeMargin: string;
  marginLevel: string | null;
  marginState: Account["marginState"];
  enabled: boolean;
  readOnly: boolean;
  registration: string;
  lastAccess: string | null;
}

export function columnsOf(account: Account): AccountColumns {
  return {
    login: account.login,
    group: account.group,
    name: account.name,
    email: account.email,
    phone: account.phone,
    country: account.country,
    city: account.city,
    address: account.address,
    comment: account.comment,
    leverage: account.leverage,
    currency: account.currency,
    balance: moneyToDecimal(account.balance),
    credit: moneyToDecimal(account.credit),
    equity: moneyToDecimal(account.equity),
    margin: moneyToDecimal(account.margin),
    freeMargin: moneyToDecimal(account.freeMargin),
    marginLevel: marginLevelText(account.marginLevel),
    marginState: account.marginState,
    enabled: account.enabled,
    readOnly: account.readOnly,
    registration: new Date(account.registration).toISOString(),
    lastAccess: account.lastAccess === null ? null : new Date(account.lastAccess).toISOString(),
  };
}

/** Percent with two decimals; absurd levels (a cent of margin) are capped to what the column holds. */
function marginLevelText(level: number | null): string | null {
  if (level === null || !Number.isFinite(level)) return null;
  const capped = Math.max(-1e15, Math.min(1e15, level));
  return capped.toFixed(2);
}

/** A numeric column as the API shows it: "1250.50", always two decimals. */
export function decimalText(value: string | null): string | null {
  if (value === null) return null;
  const [whole = "0", fraction = ""] = value.split(".");
  return `${whole}.${fraction.padEnd(2, "0").slice(0, 2)}`;
}
