/** The copier engine's read of the links it works: every link of every organization, with its followers. */
import { asc } from "drizzle-orm";
import type { Db } from "../../../db/client.ts";
import { copyFollowers, copyLinks } from "../../../db/schema.ts";
import type { EngineLink } from "./copyOne.ts";

/** Every link of every organization with its followers (the engine's view; settings as saved). */
export async function loadLinks(db: Db): Promise<EngineLink[]> {
  const [links, followers] = await Promise.all([
    db.select().from(copyLinks).orderBy(asc(copyLinks.createdAt)),
    db.select().from(copyFollowers).orderBy(asc(copyFollowers.position)),
  ]);
  return links.map((l) => ({
    id: l.id,
    organizationId: l.organizationId,
    enabled: l.enabled,
    sourcePlatformId: l.sourcePlatformId,
    sourceLogin: l.sourceLogin,
    followers: followers
      .filter((f) => f.linkId === l.id)
      .map((f) => ({
        ...f.settings,
        account: { platformId: f.platformId, login: f.login },
        enabled: f.enabled,
        addedAt: f.createdAt.getTime(),
        suspension:
          f.suspendedAt && f.suspendedStop && f.suspendedAction
            ? { stop: f.suspendedStop, action: f.suspendedAction, at: f.suspendedAt.getTime(), until: f.suspendedUntil?.getTime() ?? null }
            : null,
      })),
  }));
}
