import type { FastifyInstance, FastifyRequest } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { SecurityPolicyInputSchema, SecurityPolicySchema } from "../../../core/schemas/securityPolicy.ts";
import {
  addressAllowed,
  signedInWithSecondFactor,
  SESSION_LIFETIME_MAX_SECONDS,
  SESSION_LIFETIME_MIN_SECONDS,
  type SecurityPolicy,
} from "../../../core/securityPolicy.ts";
import { ORGANIZATION_WIDE } from "../../events/types.ts";
import { ApiErrorSchema } from "../../../core/schemas/apiError.ts";
import { ConflictError, InvalidRequestError } from "../../errors.ts";
import { actorOf } from "../audit/record.ts";
import { getPolicy, savePolicy, type StoredPolicy } from "./repository.ts";

const tags = ["security"];

function view(request: FastifyRequest, p: StoredPolicy) {
  return {
    requireTwoFactor: p.requireTwoFactor,
    sessionLifetimeSeconds: p.sessionLifetimeSeconds,
    allowedIpRanges: [...p.allowedIpRanges],
    yourAddress: request.ip,
    yourAddressAllowed: addressAllowed(request.ip, p.allowedIpRanges),
    signedInWithSecondFactor: signedInWithSecondFactor(request.auth.amr),
    bounds: { minSessionLifetimeSeconds: SESSION_LIFETIME_MIN_SECONDS, maxSessionLifetimeSeconds: SESSION_LIFETIME_MAX_SECONDS },
    updatedAt: p.updatedAt?.toISOString() ?? null,
  };
}

/** What changed, in words, for the "security settings changed" notification. */
function summarize(before: SecurityPolicy, after: SecurityPolicy): string {
  const parts: string[] = [];
  if (before.requireTwoFactor !== after.requireTwoFactor)
    parts.push(after.requireTwoFactor ? "two-factor sign-in required" : "two-factor sign-in no longer required");
  if (before.sessionLifetimeSeconds !== after.sessionLifetimeSeconds) {
    parts.push(
      after.sessionLifetimeSeconds === null
        ? "session lifetime: the identity provider's"
        : `session lifetime: ${Math.round(after.sessionLifetimeSeconds / 360) / 10} hours`,
    );
  }
  if (before.allowedIpRanges.join() !== after.allowedIpRanges.join()) {
    parts.push(after.allowedIpRanges.length === 0 ? "allowed IP ranges: any address" : `allowed IP ranges: ${after.allowedIpRanges.join(", ")}`);
  }
  return parts.length ? parts.join("; ") : "saved without changes";
}

/**
 * The organization's security policy (docs/security.md "Organization security policy"): read and
 * changed by those with the settings permission (administrators), people only: an API client never
 * reads or changes how people must sign in. The guard enforces it.
 */
export async function securityPolicyRoutes(app: FastifyInstance) {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const { db } = app.ctx.database;

  api.get(
    "/organization/security",
    {
      config: { permission: { module: "settings", value: "read" }, securitySettings: true, callers: "people" },
      schema: {
        tags,
        summary: "The organization's sign-in policy: require two-factor, session lifetime, allowed IP ranges; and the caller's address as the API sees it",
        response: { 200: SecurityPolicySchema },
      },
    },
    async (request) => view(request, await getPolicy(db, request.organization.id)),
  );

  api.put(
    "/organization/security",
    {
      config: { permission: { module: "settings", value: "write" }, securitySettings: true, callers: "people" },
      schema: {
        tags,
        summary:
          "Change the organization's sign-in policy (audited; every node applies it at once). Ranges that exclude the caller's own address: 409 unless confirmExcludingOwnAddress is true",
        body: SecurityPolicyInputSchema,
        response: {
          200: SecurityPolicySchema,
          409: ApiErrorSchema.meta({ description: "The ranges exclude the caller's own address (code `excludes_own_address`); confirm to save them" }),
        },
      },
    },
    async (request) => {
      const { confirmExcludingOwnAddress, ...policy } = request.body;
      if (!addressAllowed(request.ip, policy.allowedIpRanges) && confirmExcludingOwnAddress !== true) {
        throw new ConflictError(
          `These ranges do not include your own address ${request.ip}: once saved, you could no longer reach this organization from here. Add your address, or confirm to save them anyway (confirmExcludingOwnAddress: true).`,
          "excludes_own_address",
        );
      }
      if (policy.sessionLifetimeSeconds !== null && request.auth.authTime === undefined) {
        // The guard would refuse every call here, this one included: nobody could undo it.
        throw new InvalidRequestError(
          "A session lifetime cannot be enforced: your identity provider's access tokens do not say when the person signed in (auth_time claim). Leave it empty, or configure the provider to include auth_time.",
        );
      }
      const actor = actorOf(request);
      const { before, after } = await savePolicy(db, actor, policy);
      // The database announces the change to every node; this node applies it before answering.
      app.access.organizationChanged(actor.organizationId);
      app.bus
        .publish({
          type: "securitySettingsChanged",
          organizationId: actor.organizationId,
          platformId: ORGANIZATION_WIDE,
          actorName: actor.name,
          summary: summarize(before, after),
        })
        .catch((err: unknown) => request.log.warn({ err }, "could not announce the security settings change"));
      return view(request, after);
    },
  );
}
