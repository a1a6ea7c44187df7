/** How a platform is shown: to the API (its detail, with its live state) and to the audit log. */
import type { PlatformApp } from "../../db/tables/platforms.ts";
import type { PlatformDeps } from "./deps.ts";
import type { PlatformRow } from "./repository.ts";
import { publicConnection } from "./runtime/connection.ts";
import type { PlatformDetail } from "./schemas.ts";

export function detailOf(deps: PlatformDeps, row: PlatformRow, apps: { app: PlatformApp; enabled: boolean }[]): PlatformDetail {
  return {
    id: row.id,
    organizationId: row.organizationId,
    type: row.type,
    name: row.name,
    enable: row.enable,
    timeZone: row.timeZone,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
    connection: publicConnection(row.connection, row.secretCiphertext !== null),
    ...deps.platforms.liveState(row.id),
    apps,
  };
}

/** What the audit log keeps of a platform: everything a person set, never the secret. */
export function auditView(row: PlatformRow) {
  return {
    name: row.name,
    type: row.type,
    enable: row.enable,
    timeZone: row.timeZone,
    connection: publicConnection(row.connection, row.secretCiphertext !== null),
  };
}
