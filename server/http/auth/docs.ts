import type { FastifySchema } from "fastify";
import { ApiErrorSchema } from "../../../core/schemas/apiError.ts";
import type { ResolvedRouteAccess } from "./routeConfig.ts";

/** The OpenAPI security scheme of API clients (server/http/docs.ts). */
export const CLIENT_CREDENTIALS_SCHEME = "clientCredentials";

type Responses = Record<string | number, unknown>;

/**
 * The OpenAPI document says what the guard enforces, derived from the same route config:
 * security requirements, the permission needed and the error answers the guard can give.
 */
export function documentAccess(
  schema: FastifySchema | undefined,
  access: ResolvedRouteAccess,
  limits: { rateLimited: boolean } = { rateLimited: false },
): FastifySchema {
  const s = { ...(schema ?? {}) } as FastifySchema & { security?: unknown; description?: string; response?: Responses };
  const response: Responses = { ...(s.response ?? {}) };
  const add = (status: number, description: string) => {
    response[status] ??= ApiErrorSchema.meta({ description });
  };
  if (s.body) {
    add(413, "The body is larger than this operation accepts (1 MB unless it says otherwise)");
    add(415, "The body is not JSON (Content-Type: application/json)");
  }
  if (!access.auth) return { ...s, security: [], response };

  add(401, "Missing, expired or otherwise invalid access token");
  add(503, "Unavailable for now: the identity provider's keys or the database could not be reached; try again");
  if (limits.rateLimited) add(429, "Too many requests from this caller; try again after the seconds in Retry-After");
  let description = s.description;
  if (access.organization === "none") {
    s.security = [{ bearer: [] }];
    if (s.body || s.querystring || s.params) add(400, "Invalid request: a field is missing or malformed");
    add(403, "An API client: routes outside an organization are for people signed in only");
  } else {
    s.security =
      access.callers === "all"
        ? [
            { bearer: [], organization: [] },
            { [CLIENT_CREDENTIALS_SCHEME]: [], organization: [] },
          ]
        : [{ bearer: [], organization: [] }];
    add(400, "Invalid request: a field or the OrganizationId header is missing or malformed");
    add(
      403,
      access.callers === "all"
        ? "Refused by the organization's security policy (allowed IP ranges, require two-factor), or missing the permission"
        : "Refused by the organization's security policy (allowed IP ranges, require two-factor), missing the permission, or an API client (people only)",
    );
    add(
      404,
      access.callers === "all"
        ? "Not a member of the organization in OrganizationId (or not the API client's), or what the path names is not in it"
        : "Not a member of the organization in OrganizationId, or what the path names is not in it",
    );
    if (access.callers === "people") {
      const peopleOnly = "For people signed in only: API clients are refused (403).";
      if (!description?.includes(peopleOnly)) description = description ? `${description}\n\n${peopleOnly}` : peopleOnly;
    }
    if (access.permission) {
      const needs = `Needs the \`${access.permission.value}\` permission on the \`${access.permission.module}\` module in the current organization.`;
      // Idempotent: Fastify runs onRoute again for the HEAD twin of a GET route.
      if (!description?.includes(needs)) description = description ? `${description}\n\n${needs}` : needs;
    }
  }
  return { ...s, description, response };
}
