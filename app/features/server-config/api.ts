import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { Group } from "@core/trading/group";
import type { Holiday } from "@core/trading/holiday";
import type { TradeSymbol } from "@core/trading/symbol";
import { api } from "~/api";
import { useCurrentOrganizationId } from "~/profile";

/** The answers of /api/tradePlatforms/:id/config/… (server/modules/serverConfig/schemas.ts). */
export type ObjectKind = "group" | "symbol";
export type Item<T> = { version: string; object: T };
export type ConfigList<T> = { platform: "MT4" | "MT5" | "MatchTrader"; items: Item<T>[] };
export type HolidayList = { platform: string; supported: boolean; message: string | null; version: string | null; holidays: Holiday[] };
export type SentChange =
  | { kind: "group"; name: string; expected: string; patch: Partial<Group> }
  | { kind: "symbol"; name: string; expected: string; patch: Partial<TradeSymbol> }
  | { kind: "holidays"; expected: string; holidays: Holiday[] };
export type ChangeResult = {
  kind: "group" | "symbol" | "holidays";
  name: string | null;
  status: "applied" | "invalid" | "changed" | "failed";
  message: string | null;
  version: string | null;
  object?: unknown;
  current?: unknown;
  currentVersion: string | null;
};
export type HistoryEntry = {
  id: string;
  at: string;
  actorName: string | null;
  kind: "group" | "symbol" | "holidays";
  name: string | null;
  before: unknown;
  after: unknown;
  revert: unknown;
};

const base = (platformId: string) => `/api/tradePlatforms/${platformId}/config`;
export const configKey = (organizationId: string | null, platformId: string, what: string) => ["serverConfig", organizationId, platformId, what] as const;

export function useGroups(platformId: string) {
  const organizationId = useCurrentOrganizationId();
  return useQuery({
    queryKey: configKey(organizationId, platformId, "groups"),
    queryFn: ({ signal }) => api.get<ConfigList<Group>>(`${base(platformId)}/groups`, { signal }),
    enabled: Boolean(organizationId),
  });
}

export function useSymbols(platformId: string) {
  const organizationId = useCurrentOrganizationId();
  return useQuery({
    queryKey: configKey(organizationId, platformId, "symbols"),
    queryFn: ({ signal }) => api.get<ConfigList<TradeSymbol>>(`${base(platformId)}/symbols`, { signal }),
    enabled: Boolean(organizationId),
  });
}

export function useHolidays(platformId: string, enabled = true) {
  const organizationId = useCurrentOrganizationId();
  return useQuery({
    queryKey: configKey(organizationId, platformId, "holidays"),
    queryFn: ({ signal }) => api.get<HolidayList>(`${base(platformId)}/holidays`, { signal }),
    enabled: Boolean(organizationId) && enabled,
  });
}

export function useHistory(platformId: string, kind: "group" | "symbol" | "holidays", name: string | null) {
  const organizationId = useCurrentOrganizationId();
  const query = new URLSearchParams({ kind, ...(name === null ? {} : { name }) });
  return useQuery({
    queryKey: [...configKey(organizationId, platformId, "history"), kind, name],
    queryFn: ({ signal }) => api.get<{ entries: HistoryEntry[] }>(`${base(platformId)}/history?${query.toString()}`, { signal }),
    enabled: Boolean(organizationId),
  });
}

/** POST …/apply; afterwards the lists and histories are read again from the server. */
export function useApply(platformId: string) {
  const organizationId = useCurrentOrganizationId();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (changes: SentChange[]) => api.post<{ results: ChangeResult[] }>(`${base(platformId)}/apply`, { changes }),
    onSettled: () => queryClient.invalidateQueries({ queryKey: ["serverConfig", organizationId, platformId] }),
  });
}
