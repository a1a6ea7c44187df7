import type { FastifyRequest } from "fastify";
import type { DbOrTx } from "../../db/client.ts";
import { insertAuditEvent } from "./repository.ts";

// Audit rows go in the change's own transaction. Kept as a re-export for the modules that import
// it with recordAudit; its home is the database layer (idp/ and others import it from there).
export type { DbOrTx } from "../../db/client.ts";

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
