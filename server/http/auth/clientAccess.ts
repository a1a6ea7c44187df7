import type { Db } from "../../db/client.ts";
import { findApiClientAccess, touchApiClient } from "../../modules/apiClients/repository.ts";
import type { MemberAccess } from "../../modules/organizations/repository.ts";
import { HttpError } from "../errors.ts";
import type { MemberClaimsCache } from "./memberCache.ts";
import type { ResolvedRouteAccess } from "./routeConfig.ts";
import type { Caller } from "./request.ts";

/** "Last used" is written at most this often per client (and node). */
export const CLIENT_LAST_USED_EVERY_MS = 60_000;
const MAX_TRACKED = 10_000;

/**
 * The guard's step for API clients (client credentials, docs/api.md; decision 0050), kept apart
 * from the person's path so each reads alone. A client's token has no person: it acts only in its
 * own organization, only on routes open to clients (`callers`), and only with the module permissions
 * it was given, checked by the same rule (core/access.ts) as a member's claims. A revoked client's
 * tokens are refused at once: its claims are cached like members' and dropped on every change.
 */
export function createClientGate(opts: { db: Db; cache: MemberClaimsCache<MemberAccess>; embedded: boolean; log: { warn(obj: object, msg: string): void } }) {
  const lastTouched = new Map<string, number>();

  return {
    /** Before the organization: is this route open to a client at all? */
    admit(caller: Caller, access: Extract<ResolvedRouteAccess, { auth: true }>): void {
      if (!caller.client) return;
      if (!opts.embedded) throw new HttpError(401, "API clients are only accepted with Toolbox's own identity provider.");
      if (access.callers === "people") {
        throw new HttpError(403, "This request is for people signed in to Toolbox; an API client cannot make it.");
      }
    },

    /** The client's claims in `organizationId` (its own organization only), with the organization's security policy. */
    async claims(caller: Caller & { client: { organizationId: string } }, organizationId: string, opts2: { fresh?: boolean } = {}): Promise<MemberAccess> {
      if (caller.client.organizationId !== organizationId) {
        // Like a person naming an organization they are not a member of: 404 (docs/security.md "Not yours").
        throw new HttpError(404, "This API client belongs to another organization: send its own organization's id in the OrganizationId header.");
      }
      const access = await opts.cache.claims(organizationId, caller.sub, () => findApiClientAccess(opts.db, organizationId, caller.sub), opts2);
      if (!access) throw new HttpError(401, "This API client has been revoked: its tokens are no longer accepted.");
      return access;
    },

    /** The refusal for a missing permission, worded for a client. */
    missing(permission: { module: string; value: string }): HttpError {
      return new HttpError(
        403,
        `This API client does not have the "${permission.value}" permission on the "${permission.module}" module. An administrator can create a client with it.`,
      );
    },

    /** Records the use, cheaply: at most one UPDATE a minute per client. */
    used(clientId: string): void {
      const now = Date.now();
      if (now - (lastTouched.get(clientId) ?? 0) < CLIENT_LAST_USED_EVERY_MS) return;
      if (lastTouched.size >= MAX_TRACKED) lastTouched.clear();
      lastTouched.set(clientId, now);
      touchApiClient(opts.db, clientId, CLIENT_LAST_USED_EVERY_MS).catch((err: unknown) => opts.log.warn({ err }, "could not record an API client's last use"));
    },
  };
}
