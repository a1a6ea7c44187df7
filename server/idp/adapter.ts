import { and, eq, gt, isNotNull, isNull, lte, or, type SQL } from "drizzle-orm";
import type { Adapter, AdapterPayload } from "oidc-provider";
import type { Db } from "../db/client.ts";
import { idpRecords } from "../db/schema.ts";
import { findApiClientMetadata } from "./apiClients.ts";

/**
 * oidc-provider's storage on the `idp_records` table: one row per model instance (Session,
 * Interaction, Grant, AuthorizationCode, RefreshToken …), keyed by (model, id). Follows the
 * contract of the provider's memory adapter: expired rows are invisible, `consume` marks a
 * one-time artifact used (the provider then refuses it and revokes its grant on reuse).
 */
export interface AdapterHooks {
  /** A grant is being destroyed (revoked): record it before its row goes, so its access tokens are refused. */
  grantRevoked?(grantId: string): Promise<void>;
}

export function createDrizzleAdapter(db: Db, hooks: AdapterHooks = {}) {
  return class DrizzleAdapter implements Adapter {
    constructor(readonly model: string) {}

    /** Clients beyond the web app are the organizations' API clients (`api_clients`, apiClients.ts); never written here. */
    private get clients() {
      return this.model === "Client";
    }

    async upsert(id: string, payload: AdapterPayload, expiresIn?: number): Promise<void> {
      if (this.clients) throw new Error("API clients are created through the API (/api/organization/api-clients), not by the provider");
      // Expiry is computed and compared with this process's clock only, never the database's.
      const row = {
        payload,
        grantId: payload.grantId ?? null,
        userCode: payload.userCode ?? null,
        uid: payload.uid ?? null,
        expiresAt: typeof expiresIn === "number" ? new Date(Date.now() + expiresIn * 1000) : null,
      };
      await db
        .insert(idpRecords)
        .values({ model: this.model, id, ...row })
        // consumedAt is deliberately kept: re-saving must not make a used code usable again.
        .onConflictDoUpdate({ target: [idpRecords.model, idpRecords.id], set: row });
    }

    async find(id: string): Promise<AdapterPayload | undefined> {
      if (this.clients) return findApiClientMetadata(db, id);
      return this.findWhere(eq(idpRecords.id, id));
    }

    async findByUid(uid: string): Promise<AdapterPayload | undefined> {
      return this.findWhere(eq(idpRecords.uid, uid));
    }

    async findByUserCode(userCode: string): Promise<AdapterPayload | undefined> {
      return this.findWhere(eq(idpRecords.userCode, userCode));
    }

    async consume(id: string): Promise<void> {
      await db
        .update(idpRecords)
        .set({ consumedAt: new Date() })
        .where(and(eq(idpRecords.model, this.model), eq(idpRecords.id, id)));
    }

    async destroy(id: string): Promise<void> {
      // oidc-provider destroys a Grant only when it revokes it (sign-out, token revocation, reuse).
      if (this.model === "Grant") await hooks.grantRevoked?.(id);
      await db.delete(idpRecords).where(and(eq(idpRecords.model, this.model), eq(idpRecords.id, id)));
    }

    async revokeByGrantId(grantId: string): Promise<void> {
      await db.delete(idpRecords).where(and(eq(idpRecords.model, this.model), eq(idpRecords.grantId, grantId)));
    }

    private async findWhere(condition: SQL): Promise<AdapterPayload | undefined> {
      const [row] = await db
        .select({ payload: idpRecords.payload, consumedAt: idpRecords.consumedAt })
        .from(idpRecords)
        .where(and(eq(idpRecords.model, this.model), condition, or(isNull(idpRecords.expiresAt), gt(idpRecords.expiresAt, new Date()))))
        .limit(1);
      if (!row) return undefined;
      const payload = row.payload as AdapterPayload;
      // The provider reads `consumed` (epoch seconds) to detect reuse.
      return row.consumedAt ? { ...payload, consumed: Math.floor(row.consumedAt.getTime() / 1000) } : payload;
    }
  };
}

/** Delete rows past their expiry; the provider never asks for them again. */
export async function deleteExpiredRecords(db: Db): Promise<void> {
  await db.delete(idpRecords).where(and(isNotNull(idpRecords.expiresAt), lte(idpRecords.expiresAt, new Date())));
}
