import type { Module, Permission } from "../../../core/access.ts";

/**
 * What a route declares about who may call it (its Fastify `config`). The guard in guard.ts
 * enforces it for every /api route, so handlers never check tokens or memberships themselves.
 *
 * Defaults: a valid access token AND an `OrganizationId` header naming an organization the
 * caller belongs to.
 */
export interface RouteAccess {
  /** `false`: public route (health, docs); no token is read and nothing is decorated. */
  auth?: false;
  /**
   * `required` (default): the `OrganizationId` header must name an organization the caller is a
   * member of; `request.organization` then holds it with the caller's claims there.
   * `none`: the route is not about one organization (profile, the list of organizations …);
   * the header is ignored.
   */
  organization?: "required" | "none";
  /** A module permission of docs/requirements.md#r-access the caller needs in the current organization. */
  permission?: { module: Module; value: Permission };
  /**
   * `all` (default): people and API clients (client credentials) alike. `people`: a route about the
   * signed-in person (their preferences, inbox) or about access itself (API clients); a client is
   * refused with 403. Routes with `organization: 'none'` are for people only, always.
   */
  callers?: "all" | "people";
  /**
   * The routes that manage the organization's security policy itself: its administrators reach
   * them without the second factor the policy may require, so turning "require two-factor" on
   * never locks them out of turning it off. The allowed IP ranges and session lifetime still apply.
   */
  securitySettings?: true;
}

export type ResolvedRouteAccess =
  | { auth: false }
  | { auth: true; organization: "none"; callers: "people" }
  | { auth: true; organization: "required"; permission?: { module: Module; value: Permission }; callers: "all" | "people"; securitySettings?: true };

/** Applies the defaults, and refuses contradictory declarations when the route is registered. */
export function resolveRouteAccess(config: RouteAccess | undefined, route: string): ResolvedRouteAccess {
  const c = config ?? {};
  if (c.auth === false) {
    if (c.organization !== undefined || c.permission !== undefined || c.callers !== undefined || c.securitySettings !== undefined) {
      throw new Error(`Route ${route}: a public route (auth: false) cannot ask for an organization, a permission, callers or the security settings`);
    }
    return { auth: false };
  }
  const organization = c.organization ?? "required";
  if (organization === "none") {
    if (c.permission || c.securitySettings)
      throw new Error(`Route ${route}: a permission or policy is checked in an organization, so it needs organization: 'required'`);
    if (c.callers === "all") throw new Error(`Route ${route}: a route outside organizations (organization: 'none') is for people only`);
    return { auth: true, organization, callers: "people" };
  }
  return {
    auth: true,
    organization,
    permission: c.permission,
    callers: c.callers ?? "all",
    ...(c.securitySettings ? { securitySettings: true as const } : {}),
  };
}

declare module "fastify" {
  interface FastifyContextConfig extends RouteAccess {}
}
