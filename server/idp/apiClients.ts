import crypto from "node:crypto";
import type Provider from "oidc-provider";
import type { AdapterPayload } from "oidc-provider";
import { API_CLIENT_CLAIM } from "../http/auth/tokens.ts";
import type { Db } from "../db/client.ts";
import { findApiClient } from "../modules/apiClients/repository.ts";
import { hashClientSecret } from "../modules/apiClients/service.ts";

/**
 * An organization's API client as oidc-provider's Client (decision 0050): a confidential client
 * with the client-credentials grant only. `client_secret` holds the SHA-256 of the secret, never
 * the secret: `useHashedClientSecrets` makes the provider compare hashes.
 */
export async function findApiClientMetadata(db: Db, clientId: string): Promise<AdapterPayload | undefined> {
  if (!clientId.startsWith("tbc_")) return undefined;
  const row = await findApiClient(db, clientId);
  if (!row) return undefined;
  return {
    client_id: row.id,
    client_name: row.name,
    client_secret: row.secretHash,
    grant_types: ["client_credentials"],
    response_types: [],
    redirect_uris: [],
    token_endpoint_auth_method: "client_secret_basic",
  };
}

/** The claims of an API client's access token: its organization (API_CLIENT_CLAIM) and name. */
export async function apiClientTokenClaims(db: Db, clientId: string): Promise<Record<string, string> | undefined> {
  const row = await findApiClient(db, clientId);
  if (!row) return undefined;
  return { [API_CLIENT_CLAIM]: row.organizationId, name: row.name };
}

/**
 * The provider compares a presented client secret with the stored one (`compareClientSecret`, async
 * since oidc-provider 7 for this very purpose). Stored secrets are SHA-256 hashes, so the presented
 * one is hashed first, then compared in constant time. The secrets are 256-bit random values, so a
 * fast hash is enough (RFC 6819 §5.1.4.1.3); symmetric (HS*) algorithms, which would need the clear
 * secret, are not enabled for any client.
 */
export function useHashedClientSecrets(provider: Provider): void {
  const Client = provider.Client as unknown as { prototype: { clientSecret?: string; compareClientSecret(actual: string): Promise<boolean> | boolean } };
  Client.prototype.compareClientSecret = function compareHashed(this: { clientSecret?: string }, actual: string) {
    const stored = this.clientSecret;
    if (typeof stored !== "string" || typeof actual !== "string") return Promise.resolve(false);
    const a = Buffer.from(hashClientSecret(actual), "utf8");
    const b = Buffer.from(stored, "utf8");
    return Promise.resolve(a.length === b.length && crypto.timingSafeEqual(a, b));
  };
}
