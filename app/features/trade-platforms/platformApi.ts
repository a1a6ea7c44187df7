import { api } from "~/api";
import type {
  AssignApplicationResult,
  CreatePlatformBody,
  PlatformApp,
  PlatformAppAssignment,
  PlatformDetail,
  TestConnectionBody,
  TestConnectionResult,
  UpdatePlatformBody,
} from "@core/schemas/platform";
import type { TradeHistorySync } from "@core/schemas/tradesBlotter";
import type { TradePlatform } from "~/profile";

/**
 * The trade platform endpoints. Their types are the API's own contract, inferred from the
 * schemas in core/schemas/platform.ts (types only: no schema code reaches the bundle from here).
 * Calls that a form answers inline are silent: the form shows the API's message next to what it
 * concerns.
 */
export type {
  ConnectionInput,
  ConnectionKind,
  PlatformApp,
  PlatformAppAssignment,
  PlatformDetail,
  PublicConnection as ConnectionView,
  TestConnectionResult,
} from "@core/schemas/platform";

export type NewPlatform = CreatePlatformBody;
export type PlatformPatch = UpdatePlatformBody;

const path = (id: string) => `/api/tradePlatforms/${encodeURIComponent(id)}`;

export const platformApi = {
  get: (id: string, signal?: AbortSignal) => api.get<PlatformDetail>(path(id), { signal }),
  create: (body: NewPlatform) => api.post<PlatformDetail>("/api/tradePlatforms", body, { silent: true }),
  update: (id: string, body: PlatformPatch, options: { silent?: boolean } = { silent: true }) => api.patch<PlatformDetail>(path(id), body, options),
  remove: (id: string, confirmName: string) => api.del(path(id), { confirmName }, { silent: true }),
  testConnection: (body: TestConnectionBody) => api.post<TestConnectionResult>("/api/tradePlatforms/test-connection", body, { silent: true }),
  apps: (id: string, signal?: AbortSignal) => api.get<PlatformAppAssignment[]>(`${path(id)}/apps`, { signal }),
  setApps: (id: string, apps: PlatformAppAssignment[]) => api.put<PlatformAppAssignment[]>(`${path(id)}/apps`, apps),
  /** The trade history store's backfill progress; silent: the card says when it cannot be read. */
  tradeHistory: (id: string, signal?: AbortSignal) => api.get<TradeHistorySync>(`${path(id)}/trade-history`, { signal, silent: true }),
  assignApplication: (app: PlatformApp, platformIds: string[]) =>
    api.post<AssignApplicationResult>("/api/tradePlatforms/assign-application", { app, platformIds }, { silent: true }),
};

/** The list entry the profile store keeps (GET /api/tradePlatforms shape) for a platform detail. */
export function toListEntry(p: PlatformDetail): TradePlatform {
  return { id: p.id, organizationId: p.organizationId, type: p.type, name: p.name, enable: p.enable };
}

/** The cache key of one platform's detail (GET /api/tradePlatforms/:id). */
export const platformQueryKey = (organizationId: string | null, id: string) => ["tradePlatform", organizationId, id] as const;
