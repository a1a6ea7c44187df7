// Audit rows go in the change's own transaction: `recordAudit(tx, …)` with the caller's `tx`.
import type { FastifyRequest } from "fastify";
import type { DbOrTx } from "../../db/client.ts";
import { insertAuditEvent } from "./repository.ts";

export interface Actor {
  organizationId: string;
  sub: string;
  name: string | null;
  sourceIp: string | null;
}

export interface AuditChange {
  action: string;
  targetType: string;
  targetId: string;
  before?: unknown;
  after?: unknown;
}

/** Who is acting, from a request the API guard has already checked (token and organization). */
export function actorOf(request: FastifyRequest): Actor {
  return {
    organizationId: request.organization.id,
    sub: request.auth.sub,
    name: request.auth.name ?? request.auth.email ?? null,
    sourceIp: request.ip ?? null,
  };
}

/**
 * Write one audit record. Call it with the transaction that makes the change, so either both
 * land or neither does. Secrets must already be stripped from `before`/`after`.
 */
export async function recordAudit(db: DbOrTx, actor: Actor, change: AuditChange): Promise<void> {
  await insertAuditEvent(db, {
    organizationId: actor.organizationId,
    actorSub: actor.sub,
    actorName: actor.name,
    action: change.action,
    targetType: change.targetType,
    targetId: change.targetId,
    before: change.before ?? null,
    after: change.after ?? null,
    sourceIp: actor.sourceIp,
  });
}
