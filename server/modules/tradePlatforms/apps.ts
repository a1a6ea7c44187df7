/**
 * Which applications (Trades Blotter, Trades Copier, Quotes Monitor) work on which platform; each
 * change audited, and announced as the platform's change (`platformChanged` on the bus, through the
 * runtime's refresh): the apps that follow platforms (the Quotes Monitor) take it in at once, on
 * every node.
 */
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
  let changed: string | null = null;
  const answer = await deps.db.transaction(async (tx) => {
    const row = await repo.findPlatform(tx, actor.organizationId, id, { forUpdate: true });
    if (!row) throw new NotFoundError(NOT_FOUND);
    const before = await repo.listApps(tx, row.id);
    await repo.setApps(tx, row.id, apps);
    const after = await repo.listApps(tx, row.id);
    if (JSON.stringify(before) !== JSON.stringify(after)) {
      await recordAudit(tx, actor, { action: "tradePlatform.appsAssigned", targetType: TARGET, targetId: row.id, before, after });
      changed = row.id;
    }
    return after;
  });
  if (changed) await deps.platforms.refresh(changed);
  return answer;
}

/** Assigns one application to several platforms at once; all of them must be the organization's, else nothing changes. */
export async function assignApplication(deps: PlatformDeps, actor: Actor, app: PlatformApp, platformIds: string[]) {
  const unique = [...new Set(platformIds.map((p) => p.toLowerCase()))];
  const changed: string[] = [];
  const answer = await deps.db.transaction(async (tx) => {
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
        changed.push(platformId);
      }
      result.push({ platformId, app, enabled: true });
    }
    return result;
  });
  for (const platformId of changed) await deps.platforms.refresh(platformId);
  return answer;
}
