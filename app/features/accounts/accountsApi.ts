import { api } from "~/api";
import type { AccountsQuery } from "./accountFilters";
import type {
  AccountDetail,
  AccountPage,
  AccountRow,
  BalanceOperationRecord,
  BalanceOperationResult,
  ClosePositionBody,
  DealRow,
  JournalRow,
  ModifyPositionBody,
  PositionOperationResult,
  PositionRow,
} from "./accountTypes";
import type { CreateAccountSchema, PatchAccountSchema, PlatformGroup } from "@core/schemas/accounts";
import type { BalanceOperationBodySchema } from "@core/schemas/balanceOperations";
import type { LeverageChangeView } from "@core/schemas/flexibleLeverage";
import type { z } from "zod";

const accountPath = (platformId: string, login: string) => `/api/accounts/${encodeURIComponent(platformId)}/${encodeURIComponent(login)}`;

/** What the forms send: the API's own request schemas (core/schemas/), as input types. */
export type NewAccountInput = z.input<typeof CreateAccountSchema>;
export type AccountPatch = z.input<typeof PatchAccountSchema>;
export type BalanceOperationInput = z.input<typeof BalanceOperationBodySchema>;

/** The trading account endpoints (module `users`: read, write, money). */
export const accountsApi = {
  list: (query: AccountsQuery, signal?: AbortSignal) => api.get<AccountPage>("/api/accounts", { query, signal }),
  get: (platformId: string, login: string, signal?: AbortSignal) => api.get<AccountDetail>(accountPath(platformId, login), { signal }),
  positions: (platformId: string, login: string, signal?: AbortSignal) => api.get<PositionRow[]>(`${accountPath(platformId, login)}/positions`, { signal }),
  deals: (platformId: string, login: string, range: { from: string; to: string }, signal?: AbortSignal) =>
    api.get<DealRow[]>(`${accountPath(platformId, login)}/deals`, { query: range, signal }),
  journal: (platformId: string, login: string, range: { from: string; to: string }, signal?: AbortSignal) =>
    api.get<JournalRow[]>(`${accountPath(platformId, login)}/journal`, { query: range, signal }),
  /** Flexible Leverage's changes of the account, newest first. */
  leverageChanges: (platformId: string, login: string, signal?: AbortSignal) =>
    api.get<LeverageChangeView[]>(`${accountPath(platformId, login)}/leverageChanges`, { signal }),
  create: (body: NewAccountInput) => api.post<AccountRow>("/api/accounts", body, { silent: true }),
  update: (platformId: string, login: string, body: AccountPatch, options: { silent?: boolean } = { silent: true }) =>
    api.patch<AccountRow>(accountPath(platformId, login), body, options),
  resetPassword: (platformId: string, login: string, password: string, kind: "main" | "investor" = "main") =>
    api.post<void>(`${accountPath(platformId, login)}/reset-password`, { password, kind }, { silent: true }),
  /** The platform's groups, with its own names (`demo\retail-usd`), sorted. */
  groups: (platformId: string, signal?: AbortSignal) => api.get<PlatformGroup[]>("/api/accounts/groups", { query: { platformId }, signal, silent: true }),
  balanceOperation: (platformId: string, login: string, body: BalanceOperationInput, idempotencyKey: string) =>
    api.post<BalanceOperationResult>(`${accountPath(platformId, login)}/balance-operations`, body, {
      silent: true,
      headers: { "Idempotency-Key": idempotencyKey },
    }),
  /** New stops, a close or a partial close of a position: exactly once per Idempotency-Key, like money. */
  positionOperation: (
    platformId: string,
    login: string,
    positionId: string,
    request: { action: "modify"; body: ModifyPositionBody } | { action: "close"; body: ClosePositionBody },
    idempotencyKey: string,
  ) =>
    api.post<PositionOperationResult>(`${accountPath(platformId, login)}/positions/${encodeURIComponent(positionId)}/${request.action}`, request.body, {
      silent: true,
      headers: { "Idempotency-Key": idempotencyKey },
    }),
  balanceOperations: (platformId: string, login: string, signal?: AbortSignal) =>
    api.get<BalanceOperationRecord[]>(`${accountPath(platformId, login)}/balance-operations`, { signal }),
};

export const accountQueryKey = (organizationId: string | null, platformId: string, login: string) => ["account", organizationId, platformId, login] as const;
/** Under the account's key, so whatever refreshes the account refreshes these too. */
export const balanceOperationsQueryKey = (organizationId: string | null, platformId: string, login: string) =>
  [...accountQueryKey(organizationId, platformId, login), "balance-operations"] as const;

/** Under the account's key, so whatever refreshes the account refreshes its positions too. */
export const positionsQueryKey = (organizationId: string | null, platformId: string, login: string) =>
  [...accountQueryKey(organizationId, platformId, login), "positions"] as const;

export const platformGroupsQueryKey = (organizationId: string | null, platformId: string) => ["platformGroups", organizationId, platformId] as const;
