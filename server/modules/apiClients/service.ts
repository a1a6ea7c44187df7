/**
 * API clients of one organization (docs/api.md, decision 0050): created with a secret shown once
 * and kept only as its SHA-256, listed, revoked. Every change is audited in its own transaction.
 */
import crypto from "node:crypto";
import { hasModuleAccess, type Claim, type Module } from "../../../core/access.ts";
import { normalizePermissions, type ModulePermissions } from "../../../core/roles.ts";
import type { ApiClientCreated, ApiClientView, CreateApiClient } from "../../../core/schemas/apiClients.ts";
import type { Db } from "../../db/client.ts";
import { NotFoundError, RefusedError } from "../../errors.ts";
import { recordAudit, type Actor } from "../audit/record.ts";
import { deleteApiClient, insertApiClient, type ApiClientRow } from "./repository.ts";

export interface ApiClientsDeps {
  db: Db;
  /** After a change has committed: this node's cache of clients follows at once. */
  accessChanged(organizationId: string): void;
}

/** SHA-256 of a secret, hex: what is stored, and what the identity provider compares. */
export function hashClientSecret(secret: string): string {
  return crypto.createHash("sha256").update(secret, "utf8").digest("hex");
}

export function apiClientView(row: ApiClientRow): ApiClientView {
  return {
    clientId: row.id,
    name: row.name,
    permissions: normalizePermissions(row.permissions as ModulePermissions),
    createdBy: row.createdByName ?? row.createdBySub,
    createdAt: row.createdAt.toISOString(),
    lastUsedAt: row.lastUsedAt?.toISOString() ?? null,
  };
}

/**
 * Creates a client with a new secret (32 random bytes), returned here only. A member gives a client
 * no more than they may do themselves (an administrator may give anything).
 */
export async function createApiClient(deps: ApiClientsDeps, actor: Actor, actorClaims: readonly Claim[], input: CreateApiClient): Promise<ApiClientCreated> {
  const { organizationId } = actor;
  const permissions = normalizePermissions(input.permissions);
  const beyond = Object.entries(permissions).flatMap(([module, values]) =>
    values.filter((p) => !hasModuleAccess(actorClaims, organizationId, module as Module, p)).map((p) => `${module}: ${p}`),
  );
  if (beyond.length > 0) {
    throw new RefusedError(`You cannot give an API client permissions you do not have yourself (${beyond.join(", ")}).`);
  }
  const id = `tbc_${crypto.randomBytes(12).toString("base64url")}`;
  const secret = crypto.randomBytes(32).toString("base64url");
  const row = await deps.db.transaction(async (tx) => {
    const row = await insertApiClient(tx, {
      id,
      organizationId,
      name: input.name,
      secretHash: hashClientSecret(secret),
      permissions,
      createdBySub: actor.sub,
      createdByName: actor.name,
    });
    await recordAudit(tx, actor, { action: "apiClient.created", targetType: "apiClient", targetId: id, after: { name: input.name, permissions } });
    return row;
  });
  deps.accessChanged(organizationId);
  return { ...apiClientView(row), clientSecret: secret };
}

/** Revokes a client: it gets no more tokens, and the tokens it has are refused at once. */
export async function revokeApiClient(deps: ApiClientsDeps, actor: Actor, clientId: string): Promise<void> {
  const { organizationId } = actor;
  await deps.db.transaction(async (tx) => {
    const row = await deleteApiClient(tx, organizationId, clientId);
    if (!row) throw new NotFoundError("This API client does not exist, or was already revoked.");
    await recordAudit(tx, actor, {
      action: "apiClient.revoked",
      targetType: "apiClient",
      targetId: clientId,
      before: { name: row.name, permissions: row.permissions },
    });
  });
  deps.accessChanged(organizationId);
}
