import { and, asc, eq, lt, or, isNull, sql } from "drizzle-orm";
import { NO_POLICY, type SecurityPolicy } from "../../../core/securityPolicy.ts";
import { claimsOfAccess, type ModulePermissions } from "../../../core/roles.ts";
import type { Db, DbOrTx } from "../../db/client.ts";
import { apiClients, organizationSecurity } from "../../db/schema.ts";
import type { MemberAccess } from "../organizations/repository.ts";

export type ApiClientRow = typeof apiClients.$inferSelect;

export async function listApiClients(db: DbOrTx, organizationId: string): Promise<ApiClientRow[]> {
  return db.select().from(apiClients).where(eq(apiClients.organizationId, organizationId)).orderBy(asc(apiClients.createdAt), asc(apiClients.id));
}

export async function insertApiClient(db: DbOrTx, values: typeof apiClients.$inferInsert): Promise<ApiClientRow> {
  const [row] = await db.insert(apiClients).values(values).returning();
  return row!;
}

/** Deletes the organization's client; undefined when it has no such client. */
export async function deleteApiClient(db: DbOrTx, organizationId: string, clientId: string): Promise<ApiClientRow | undefined> {
  const [row] = await db
    .delete(apiClients)
    .where(and(eq(apiClients.organizationId, organizationId), eq(apiClients.id, clientId)))
    .returning();
  return row;
}

/** The client as the identity provider needs it (any organization): id and secret hash. */
export async function findApiClient(db: Db, clientId: string): Promise<ApiClientRow | undefined> {
  const [row] = await db.select().from(apiClients).where(eq(apiClients.id, clientId)).limit(1);
  return row;
}

/**
 * The claims an API client holds in `organizationId` (its module permissions, as docs/requirements.md#r-access claims)
 * and the organization's security policy (the guard applies its allowed IP ranges), or null when
 * the client does not exist (revoked) or belongs to another organization.
 */
export async function findApiClientAccess(db: Db, organizationId: string, clientId: string): Promise<MemberAccess | null> {
  const [row] = await db
    .select({
      permissions: apiClients.permissions,
      requireTwoFactor: organizationSecurity.requireTwoFactor,
      sessionLifetimeSeconds: organizationSecurity.sessionLifetimeSeconds,
      allowedIpRanges: organizationSecurity.allowedIpRanges,
    })
    .from(apiClients)
    .leftJoin(organizationSecurity, eq(organizationSecurity.organizationId, apiClients.organizationId))
    .where(and(eq(apiClients.id, clientId), eq(apiClients.organizationId, organizationId)))
    .limit(1);
  if (!row) return null;
  const claims = claimsOfAccess({ admin: false, permissions: row.permissions as ModulePermissions }, organizationId);
  const policy: SecurityPolicy =
    row.requireTwoFactor === null
      ? NO_POLICY
      : { requireTwoFactor: row.requireTwoFactor, sessionLifetimeSeconds: row.sessionLifetimeSeconds, allowedIpRanges: row.allowedIpRanges ?? [] };
  return { claims, policy };
}

/** Records a call: one UPDATE, skipped when the stored time is less than `minAgeMs` old. */
export async function touchApiClient(db: Db, clientId: string, minAgeMs: number): Promise<void> {
  await db
    .update(apiClients)
    .set({ lastUsedAt: sql`now()` })
    .where(
      and(
        eq(apiClients.id, clientId),
        or(isNull(apiClients.lastUsedAt), lt(apiClients.lastUsedAt, sql`now() - ${minAgeMs}::integer * interval '1 millisecond'`)),
      ),
    );
}
