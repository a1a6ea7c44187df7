/**
 * The accounts API's answers, as the app sees them: inferred from the API's own schemas
 * (core/schemas/accountViews.ts, core/schemas/balanceOperations.ts), never written twice. Money
 * is a decimal string ("1250.50"), exact; it is only ever formatted, never computed with, here.
 */
export type { AccountDetail, AccountPage, AccountRow, DealRow, JournalRow, PositionRow } from "@core/schemas/accountViews";
export type {
  BalanceOperationAnswer as BalanceOperationResult,
  BalanceOperationDone,
  BalanceOperationRecord,
  BalanceOperationUnreconciled,
} from "@core/schemas/balanceOperations";
export type { ClosePositionBody, ModifyPositionBody, PositionOperationResult } from "@core/schemas/positionOperations";

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
