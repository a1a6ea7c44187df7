/** Which applications (Trades Blotter, Trades Copier) work on which platform; each change audited. */
import type { PlatformApp } from "../../db/tables/platforms.ts";
import { NotFoundError } from "../../errors.ts";
import { recordAudit, type Actor } from "../audit/record.ts";
import { AUDIT_TARGET as TARGET, NOT_FOUND, type PlatformDeps } from "./deps.ts";
import * as repo from "./repository.ts";

export async function getApps(deps: PlatformDeps, organizationId: string, id: string) {
  const row = await repo.findPlatform(deps.db, organizationId, id);
  if (!row) throw new NotFoundError(NOT_FOUND);
  return repo.listApps(deps.db, row.id);
}

export async function setApps(deps: PlatformDeps, actor: Actor, id: string, apps: { app: PlatformApp; enabled: boolean }[]) {
  return deps.db.transaction(async (tx) => {
    const row = await repo.findPlatform(tx, actor.organizationId, id, { forUpdate: true });
    if (!row) throw new NotFoundError(NOT_FOUND);
    const before = await repo.listApps(tx, row.id);
    await repo.setApps(tx, row.id, apps);
    const after = await repo.listApps(tx, row.id);
    if (JSON.stringify(before) !== JSON.stringify(after)) {
      await recordAudit(tx, actor, { action: "tradePlatform.appsAssigned", targetType: TARGET, targetId: row.id, before, after });
    }
    return after;
  });
}

/** Assigns one application to several platforms at once; all of them must be the organization's, else nothing changes. */
export async function assignApplication(deps: PlatformDeps, actor: Actor, app: PlatformApp, platformIds: string[]) {
  const unique = [...new Set(platformIds.map((p) => p.toLowerCase()))];
  return deps.db.transaction(async (tx) => {
    const owned = await repo.ownedPlatformIds(tx, actor.organizationId, unique);
    if (owned.size !== unique.length) throw new NotFoundError(NOT_FOUND);
    const result: { platformId: string; app: PlatformApp; enabled: true }[] = [];
    for (const platformId of unique) {
      const before = await repo.listApps(tx, platformId);
      if (!before.find((a) => a.app === app)?.enabled) {
        await repo.setApps(tx, platformId, [{ app, enabled: true }]);
        await recordAudit(tx, actor, {
          action: "tradePlatform.appsAssigned",
          targetType: TARGET,
          targetId: platformId,
          before,
          after: await repo.listApps(tx, platformId),
        });
      }
      result.push({ platformId, app, enabled: true });
    }
    return result;
  });
}
