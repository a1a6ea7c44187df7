import type { FastifyRequest } from "fastify";
import { isOrganizationAdmin } from "../../../core/access.ts";
import { addressAllowed, signedInWithSecondFactor, type SecurityPolicy } from "../../../core/securityPolicy.ts";
import type { MemberAccess } from "../../modules/organizations/repository.ts";
import { HttpError } from "../errors.ts";
import type { ResolvedRouteAccess } from "./routeConfig.ts";
import "./request.ts";

/**
 * An organization's security policy (docs/security.md "Organization security policy", decision
 * 0051), as the guard (guard.ts) enforces it on every organization-scoped request, after
 * membership and before the route's permission; and as open streams are checked again when it
 * changes (streamAccess.ts). Each rule is its own function.
 */

type OrganizationAccess = Extract<ResolvedRouteAccess, { organization: "required" }>;

/** What the policy looks at in a request: its address and the caller's sign-in. */
export type PolicySubject = Pick<FastifyRequest, "ip"> & { auth: Pick<FastifyRequest["auth"], "amr" | "authTime"> };

export function policyRefusal(
  request: PolicySubject,
  organizationId: string,
  member: MemberAccess,
  access: Pick<OrganizationAccess, "securitySettings">,
): HttpError | undefined {
  return checkAllowedAddress(request, member.policy) ?? checkSessionLifetime(request, member.policy) ?? checkTwoFactor(request, organizationId, member, access);
}

/** Allowed IP ranges: the request's address (request.ip: TRUST_PROXY decides how it is read) must be in one. */
export function checkAllowedAddress(request: PolicySubject, policy: SecurityPolicy): HttpError | undefined {
  if (addressAllowed(request.ip, policy.allowedIpRanges)) return undefined;
  return new HttpError(403, `Your address ${request.ip} is not in this organization's allowed IP ranges. Ask its administrator.`, "address_not_allowed");
}

export const SESSION_ENDED_MESSAGE = "Your session for this organization has ended; sign in again.";

/** Session lifetime: the sign-in (`auth_time`) must be more recent than the organization allows. */
export function checkSessionLifetime(request: PolicySubject, policy: SecurityPolicy): HttpError | undefined {
  const lifetime = policy.sessionLifetimeSeconds;
  if (lifetime === null) return undefined;
  const { authTime } = request.auth;
  if (authTime === undefined) {
    // Without it the rule cannot be checked; letting the call through would ignore the policy.
    return new HttpError(
      403,
      "This organization limits how long a sign-in lasts, but your access token does not say when you signed in (auth_time). Ask its administrator.",
      "session_time_unknown",
    );
  }
  if (Date.now() / 1000 - authTime <= lifetime) return undefined;
  return new HttpError(401, SESSION_ENDED_MESSAGE, "session_expired");
}

/**
 * Require two-factor: the sign-in's `amr` must name a second factor. Administrators pass on the
 * routes that manage the policy itself (`securitySettings`), so they can always undo it.
 */
export function checkTwoFactor(
  request: PolicySubject,
  organizationId: string,
  member: MemberAccess,
  access: Pick<OrganizationAccess, "securitySettings">,
): HttpError | undefined {
  if (!member.policy.requireTwoFactor || signedInWithSecondFactor(request.auth.amr)) return undefined;
  if (access.securitySettings && isOrganizationAdmin(member.claims, organizationId)) return undefined;
  return new HttpError(
    403,
    "This organization requires two-factor sign-in. Set up an authenticator app under Settings → Security, then sign in again with a code.",
    "two_factor_required",
  );
}
