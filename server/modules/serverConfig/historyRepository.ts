/**
 * A platform's configuration change history, per object, from the audit log (the service writes
 * one record per applied change, with the changed fields' values before and after). Each entry
 * carries its revert: the change that undoes it, to stage against the object's current version.
 */
import { and, desc, eq, inArray, like } from "drizzle-orm";
import type { DbOrTx } from "../../db/client.ts";
import { auditEvents } from "../../db/schema.ts";
import { AUDIT_TARGET, auditTargetId } from "./service.ts";
import type { HistoryEntry, HistoryQuery } from "./schemas.ts";

const KIND_OF: Record<string, HistoryEntry["kind"]> = {
  [AUDIT_TARGET.group]: "group",
  [AUDIT_TARGET.symbol]: "symbol",
  [AUDIT_TARGET.holidays]: "holidays",
};

export async function configHistory(db: DbOrTx, organizationId: string, platformId: string, query: HistoryQuery): Promise<HistoryEntry[]> {
  const types = query.kind ? [AUDIT_TARGET[query.kind]] : Object.values(AUDIT_TARGET);
  const target =
    query.kind === "holidays"
      ? eq(auditEvents.targetId, auditTargetId(platformId, null))
      : query.name !== undefined
        ? eq(auditEvents.targetId, auditTargetId(platformId, query.name))
        : like(auditEvents.targetId, `${platformId}/%`);
  const rows = await db
    .select()
    .from(auditEvents)
    .where(and(eq(auditEvents.organizationId, organizationId), inArray(auditEvents.targetType, types), target))
    .orderBy(desc(auditEvents.at), desc(auditEvents.id))
    .limit(query.limit);
  return rows.map((row) => {
    const kind = KIND_OF[row.targetType] ?? "group";
    const name = kind === "holidays" ? null : row.targetId.slice(platformId.length + 1);
    const before = row.before as Record<string, unknown> | null;
    return {
      id: row.id,
      at: row.at.toISOString(),
      actorName: row.actorName,
      kind,
      name,
      before: row.before,
      after: row.after,
      revert: kind === "holidays" ? (before?.holidays ?? []) : (before ?? {}),
    };
  });
}
