import { api } from "~/api";
import type { ConnectionState, TradePlatformType } from "@core/trading/platform";
import type { TradePlatform } from "~/profile";

/**
 * The trade platform endpoints (scratch/issue3-contract.md, "Platforms"). Calls that a form
 * answers inline are silent: the form shows the API's message next to what it concerns.
 */
export type ConnectionKind = "simulated" | "mt5WebApi" | "mt4Gateway" | "matchTraderApi";

export type ConnectionInput =
  | { kind: "simulated"; accounts?: number; tradeRate?: number; seed?: number }
  | { kind: "mt5WebApi" | "mt4Gateway"; address: string; login: string; password?: string }
  | { kind: "matchTraderApi"; apiUrl: string; apiKey?: string };

/** What the API says about a connection: never the secret, only whether one is stored. */
export interface ConnectionView {
  kind: ConnectionKind;
  address?: string;
  login?: string;
  apiUrl?: string;
  accounts?: number;
  tradeRate?: number;
  seed?: number;
  hasSecret: boolean;
}

export type PlatformApp = "tradesBlotter" | "tradesCopier";

export interface PlatformAppAssignment {
  app: PlatformApp;
  enabled: boolean;
}

export interface PlatformDetail {
  id: string;
  organizationId: string;
  type: TradePlatformType;
  name: string;
  enable: boolean;
  timeZone: string;
  createdAt: string;
  updatedAt: string;
  connection: ConnectionView;
  state: ConnectionState;
  lastError: string | null;
  serverTime?: string;
  apps: PlatformAppAssignment[];
}

export interface NewPlatform {
  type: TradePlatformType;
  name: string;
  timeZone: string;
  connection: ConnectionInput;
}

export type PlatformPatch = Partial<Pick<NewPlatform, "name" | "timeZone" | "connection">> & { enable?: boolean };

export type TestConnectionResult =
  | { ok: true; serverTime: string; accounts: number }
  | { ok: false; code: "unreachable" | "credentialsRefused" | "timeout" | "invalidRequest"; message: string };

const path = (id: string) => `/api/tradePlatforms/${encodeURIComponent(id)}`;

export const platformApi = {
  get: (id: string, signal?: AbortSignal) => api.get<PlatformDetail>(path(id), { signal }),
  create: (body: NewPlatform) => api.post<PlatformDetail>("/api/tradePlatforms", body, { silent: true }),
  update: (id: string, body: PlatformPatch, options: { silent?: boolean } = { silent: true }) => api.patch<PlatformDetail>(path(id), body, options),
  remove: (id: string, confirmName: string) => api.del(path(id), { confirmName }, { silent: true }),
  testConnection: (body: Pick<NewPlatform, "type" | "connection"> & { timeZone?: string; platformId?: string }) =>
    api.post<TestConnectionResult>("/api/tradePlatforms/test-connection", body, { silent: true }),
  apps: (id: string, signal?: AbortSignal) => api.get<PlatformAppAssignment[]>(`${path(id)}/apps`, { signal }),
  setApps: (id: string, apps: PlatformAppAssignment[]) => api.put<PlatformAppAssignment[]>(`${path(id)}/apps`, apps),
  assignApplication: (app: PlatformApp, platformIds: string[]) =>
    api.post<{ platformId: string; app: PlatformApp; enabled: boolean }[]>("/api/tradePlatforms/assign-application", { app, platformIds }, { silent: true }),
};

/** The list entry the profile store keeps (GET /api/tradePlatforms shape) for a platform detail. */
export function toListEntry(p: PlatformDetail): TradePlatform {
  return { id: p.id, organizationId: p.organizationId, type: p.type, name: p.name, enable: p.enable };
}

export const platformQueryKey = (organizationId: string | null, id: string) => ["tradePlatform", organizationId, id] as const;
