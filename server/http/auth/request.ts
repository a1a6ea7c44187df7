import type { Claim } from "../../../core/access.ts";
import type { SecurityPolicy } from "../../../core/securityPolicy.ts";
import type { MemberAccess } from "../../modules/organizations/repository.ts";

/** The person (or API client) behind a verified access token. */
export interface Caller {
  /** `sub` of the token: the person's id at the identity provider, or an API client's id. */
  sub: string;
  email: string | null;
  /**
   * The token says the provider verified `email` (`email_verified: true`). Anything that grants
   * access by e-mail address (accepting an invitation) needs it.
   */
  emailVerified: boolean;
  name: string | null;
  /**
   * How the person signed in, from the token's `amr` (RFC 8176), e.g. ["pwd"] or ["pwd","otp"];
   * empty when the token does not say. "otp" or "mfa" in it means two-factor.
   */
  amr: string[];
  /**
   * Set when the caller is an API client (client credentials, docs/api.md) rather than a person:
   * the organization it belongs to, the only one it may act in.
   */
  client?: { organizationId: string };
  /** When the person signed in (`auth_time` claim, seconds since the epoch); absent when the token does not say. */
  authTime?: number;
}

/** The organization named by the `OrganizationId` header, once membership is proven. */
export interface CurrentOrganization {
  /** Lower-case UUID, as stored. */
  id: string;
  /** The caller's claims in this organization (docs/requirements.md#r-access), for `hasAccess` / `hasModuleAccess`. */
  claims: readonly Claim[];
  /** The organization's security policy, which the guard has enforced for this request. */
  policy: SecurityPolicy;
}

declare module "fastify" {
  interface FastifyRequest {
    /**
     * Set by the guard on every route whose config does not say `auth: false`; handlers of
     * public routes must not read it.
     */
    auth: Caller;
    /** Set by the guard on routes with `organization: 'required'` (the default) only. */
    organization: CurrentOrganization;
    /**
     * Whether `organizationId`'s security policy (allowed IP ranges, session lifetime, two-factor)
     * admits this request, as the guard would if the OrganizationId header named it; for routes
     * outside organizations that list what several organizations hold.
     */
    policyAdmits(organizationId: string, member: MemberAccess): boolean;
    /**
     * The caller's claims in every organization, from the guard's cache (accessState.ts `people`)
     * or `load` when it has none: dropped on the database's announcements of any change, at most
     * 2 s old otherwise. The value is shared: never change it.
     */
    claimsEverywhere(load: () => Promise<Claim[]>): Promise<Claim[]>;
    /**
     * What `load` reads about the current organization's members (`what` names it), from the
     * guard's cache: dropped when the database announces a change of the organization's
     * memberships or claims, at most 2 s old otherwise (so a member's name or last sign-in may
     * be that old). The value is shared: never change it.
     */
    memberCached<T>(what: string, load: () => Promise<T>): Promise<T>;
  }
}
