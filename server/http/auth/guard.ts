import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from "fastify";
import fp from "fastify-plugin";
import { hasModuleAccess, type Claim } from "../../../core/access.ts";
import { loadSigningKeys } from "../../idp/keys.ts";
import { secretCipherOf } from "../../secrets/context.ts";
import { findMemberAccess, type MemberAccess } from "../../modules/organizations/repository.ts";
import { HttpError } from "../errors.ts";
import { discoveredKeySource, embeddedKeySource, KeySourceUnavailable } from "./keys.ts";
import { resolveRouteAccess, type ResolvedRouteAccess } from "./routeConfig.ts";
import { createTokenVerifier, TokenRejected } from "./tokens.ts";
import { documentAccess } from "./docs.ts";
import { createClientGate } from "./clientAccess.ts";
import { checkAllowedAddress, policyRefusal } from "./policy.ts";
import "./request.ts";

const ORGANIZATION_HEADER = "organizationid";
/** Any 8-4-4-4-12 hex id; PostgreSQL would refuse anything else with an internal error. */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** RFC 6750 b64token. */
const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;

type OrganizationAccess = Extract<ResolvedRouteAccess, { organization: "required" }>;

/**
 * The one guard of the API (docs/security.md). Registered on the /api scope before the modules (app.ts), it
 * reads each route's `config` (routeConfig.ts) and, before the body is even parsed:
 *  1. verifies the bearer token → `request.auth`;
 *  2. unless `organization: 'none'`, checks the caller is a member of the organization named by
 *     the `OrganizationId` header (404 if not: "not yours" is "not found") and loads their claims
 *     and its security policy there → `request.organization`;
 *  3. enforces the organization's security policy (decision 0051), one function per rule, in
 *     this order: allowed IP ranges (403), session lifetime (401), require two-factor (403);
 *  4. checks the route's module permission with the shared rule of core/access.ts.
 * An API client (client credentials) takes the same steps through clientAccess.ts: only routes
 * open to clients, only its own organization, the allowed IP ranges (the sign-in rules are about
 * people), only the permissions it was given.
 * Routes with `auth: false` skip all of it.
 */
export const authGuard = fp(
  async function authGuard(api: FastifyInstance) {
    const { config, database } = api.ctx;
    const keys = config.oidc.embedded
      ? embeddedKeySource(config.oidc.authority, async () => (await loadSigningKeys(database.db, secretCipherOf(api.ctx))).publicJwks)
      : discoveredKeySource(config.oidc.authority);
    const verifyToken = createTokenVerifier({ keys, audience: config.oidc.audience });
    const { tokens: verified, members, revocations } = api.access;
    const clientGate = createClientGate({ db: database.db, cache: api.access.clients, embedded: config.oidc.embedded, log: api.log });

    api.decorateRequest("auth");
    api.decorateRequest("organization");
    // For a route outside organizations that lists what several organizations hold (the platform
    // list): would this organization's security policy admit this request? The same rule the guard
    // applies when the OrganizationId header names it, so modules need not reach into http/.
    api.decorateRequest("policyAdmits", function (this: FastifyRequest, organizationId: string, member: MemberAccess) {
      return policyRefusal(this, organizationId, member, {}) === undefined;
    });

    // A person's claims everywhere (the profile's user-claims), kept like members' claims.
    api.decorateRequest("claimsEverywhere", async function (this: FastifyRequest, load: () => Promise<Claim[]>) {
      return (await api.access.people.claims("", this.auth.sub, load)) ?? [];
    });

    api.decorateRequest("memberCached", async function <T>(this: FastifyRequest, what: string, load: () => Promise<T>): Promise<T> {
      return (await api.access.organizations.claims(this.organization.id, what, load)) as T;
    });

    // Checked when each route is registered, so a contradictory declaration stops the start.
    api.addHook("onRoute", (route: RouteOptions) => {
      const access = resolveRouteAccess(route.config, `${String(route.method)} ${route.url}`);
      route.schema = documentAccess(route.schema, access, { rateLimited: Boolean((route.config as { rateLimit?: unknown } | undefined)?.rateLimit) });
    });

    api.addHook("onRequest", async (request, reply) => {
      if (request.is404) return;
      const access = resolveRouteAccess(request.routeOptions.config, request.routeOptions.url ?? request.url);
      if (!access.auth) return;
      request.auth = await authenticate(request, reply);
      // API clients (clientAccess.ts): only routes open to them.
      clientGate.admit(request.auth, access);
      if (access.organization === "required") await enterOrganization(request, reply, access);
    });

    async function authenticate(request: FastifyRequest, reply: FastifyReply) {
      const header = request.headers.authorization;
      try {
        if (!header) throw new TokenRejected("Sign-in required: send an access token as 'Authorization: Bearer <token>'.");
        const token = BEARER.exec(header)?.[1];
        if (!token) throw new TokenRejected("The Authorization header must be 'Bearer <access token>'.");
        let found = verified.get(token);
        if (!found) {
          found = await verifyToken(token);
          verified.set(token, found);
        }
        // Asked on every request, cached token or not: a sign-out ends access at once.
        if (revocations?.isRevoked(found.grantId)) throw new TokenRejected("This sign-in has ended (signed out or revoked). Sign in again.");
        return found.caller;
      } catch (err) {
        if (err instanceof KeySourceUnavailable) {
          request.log.error({ err }, "cannot verify access tokens");
          throw new HttpError(503, "The identity provider cannot be reached to check your sign-in. Please try again shortly.");
        }
        if (!(err instanceof TokenRejected)) throw err;
        request.log.info({ reason: err.message, cause: (err.cause as Error | undefined)?.message }, "access token refused");
        // RFC 6750 §3: no error code when no credentials were sent at all.
        const description = err.message.replaceAll('"', "'");
        reply.header(
          "WWW-Authenticate",
          header ? `Bearer realm="toolbox", error="invalid_token", error_description="${description}"` : 'Bearer realm="toolbox"',
        );
        throw new HttpError(401, err.message);
      }
    }

    async function enterOrganization(request: FastifyRequest, reply: FastifyReply, access: OrganizationAccess) {
      const raw = request.headers[ORGANIZATION_HEADER];
      if (raw === undefined || raw === "") {
        throw new HttpError(400, "Choose an organization: send its id in the OrganizationId header.");
      }
      if (typeof raw !== "string" || !UUID.test(raw.trim())) {
        throw new HttpError(400, "The OrganizationId header must be an organization id (a UUID).");
      }
      const id = raw.trim().toLowerCase();
      const caller = request.auth;
      if (caller.client) return enterOrganizationAsClient(request, { ...caller, client: caller.client }, id, access);
      const { sub } = caller;
      const load = () => findMemberAccess(database.db, id, sub);
      let member = await members.claims(id, sub, load);
      // Not yours answers 404, as anything of another organization does (docs/security.md "Not
      // yours"); the same for an organization that does not exist, so it tells nothing.
      if (!member) throw new HttpError(404, "You are not a member of this organization");

      const { permission } = access;
      const allowed = (c: readonly Claim[]) => !permission || hasModuleAccess(c, id, permission.module, permission.value);
      // Claims and policy may be a couple of seconds old (memberCache.ts); a refusal is decided on
      // the database's current ones, so a permission granted or a policy relaxed a moment ago counts at once.
      let refusal = policyRefusal(request, id, member, access);
      if (!allowed(member.claims) || refusal) {
        member = await members.claims(id, sub, load, { fresh: true });
        if (!member) throw new HttpError(404, "You are not a member of this organization");
        refusal = policyRefusal(request, id, member, access);
      }
      request.organization = { id, claims: member.claims, policy: member.policy };
      if (refusal) {
        if (refusal.statusCode === 401) {
          reply.header("WWW-Authenticate", `Bearer realm="toolbox", error="invalid_token", error_description="${refusal.message.replaceAll('"', "'")}"`);
        }
        request.log.info({ code: refusal.code, organizationId: id }, "refused by the organization's security policy");
        throw refusal;
      }
      if (permission && !allowed(member.claims)) {
        throw new HttpError(
          403,
          `You need the "${permission.value}" permission on the "${permission.module}" module in this organization. Ask its administrator.`,
        );
      }
    }

    /**
     * The same check for an API client (clientAccess.ts): its own organization, the organization's
     * allowed IP ranges (session lifetime and two-factor are about a person's sign-in), its own
     * permissions.
     */
    async function enterOrganizationAsClient(
      request: FastifyRequest,
      caller: Parameters<typeof clientGate.claims>[0],
      id: string,
      access: Extract<ResolvedRouteAccess, { organization: "required" }>,
    ) {
      const { permission } = access;
      const allowed = (c: readonly Claim[]) => !permission || hasModuleAccess(c, id, permission.module, permission.value);
      let client = await clientGate.claims(caller, id);
      let refusal = checkAllowedAddress(request, client.policy);
      if (!allowed(client.claims) || refusal) {
        client = await clientGate.claims(caller, id, { fresh: true });
        refusal = checkAllowedAddress(request, client.policy);
      }
      request.organization = { id, claims: client.claims, policy: client.policy };
      if (refusal) {
        request.log.info({ code: refusal.code, organizationId: id }, "API client refused by the organization's security policy");
        throw refusal;
      }
      if (permission && !allowed(client.claims)) throw clientGate.missing(permission);
      clientGate.used(caller.sub);
    }
  },
  { name: "toolbox-auth-guard", fastify: "5.x" },
);

/**
 * The organization's security policy, each rule its own function, in the order docs/security.md
 * gives: where the call comes from, then how old the sign-in is, then how it was made. The first
 * refusal, or undefined.
 */
