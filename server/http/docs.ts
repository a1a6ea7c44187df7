import type { FastifyInstance } from "fastify";
import swagger from "@fastify/swagger";
import swaggerUi from "@fastify/swagger-ui";
import { z } from "zod";
import { jsonSchemaTransform, jsonSchemaTransformObject } from "fastify-type-provider-zod";
import { ApiErrorSchema } from "../../core/schemas/apiError.ts";
import { CLIENT_CREDENTIALS_SCHEME } from "./auth/docs.ts";

type Responses = Record<string, unknown>;

/**
 * A stable `operationId` from the method and the path, so that generated clients have method
 * names and nobody has to name 90 operations by hand: `GET /api/accounts/:platformId/:login` is
 * `getAccountsByPlatformIdByLogin`. A route may name its own (`schema.operationId`).
 */
export function operationIdOf(method: string, url: string): string {
  const words = url
    .replace(/^\/api\//, "")
    .split("/")
    .filter(Boolean)
    .flatMap((segment) => (segment.startsWith(":") ? ["by", ...segment.slice(1).split(/[^A-Za-z0-9]+/)] : segment.split(/[^A-Za-z0-9]+/)))
    .filter(Boolean);
  return [method.toLowerCase(), ...words.map((w) => w[0]!.toUpperCase() + w.slice(1))].join("");
}

const apiError = (description: string) => ({
  description,
  content: { "application/json": { schema: z.toJSONSchema(ApiErrorSchema, { target: "openapi-3.0" }) } },
});

/**
 * Every operation documents at least one success and one refusal (Redocly's recommended rules).
 * Most routes declare their success; those answering with no JSON body are recognised here, in
 * one place, by what they are: a `.csv` download, a live stream (`/live`, `/stream`, Server-Sent
 * Events), an HTML page (`text/html` routes say so themselves), or else 204 No Content. Every /api
 * route may answer 400 (a malformed URL, server/http/json.ts). The API tests check every answer
 * against this document (server/http/contract.ts), so a wrong guess here fails them.
 */
export function completeResponses(url: string, response: Responses): Responses {
  const out: Responses = { ...response };
  const codes = Object.keys(out);
  if (!codes.some((c) => c.startsWith("2"))) {
    if (url.endsWith(".csv"))
      out[200] = { description: "A CSV file (UTF-8, comma-separated, header row first)", content: { "text/csv": { schema: { type: "string" } } } };
    else if (/\/(live|stream)$/.test(url))
      out[200] = { description: "A live stream of Server-Sent Events", content: { "text/event-stream": { schema: { type: "string" } } } };
    else out[204] = { description: "Done; no content" };
  }
  if (!codes.some((c) => c.startsWith("4"))) out[400] = apiError("Invalid request: a field or the URL is missing or malformed");
  return out;
}

/** OpenAPI document built from the routes' zod schemas, with a reference page at /api/docs. */
export async function registerApiDocs(app: FastifyInstance) {
  const { oidc, publicUrl } = app.ctx.config;
  await app.register(swagger, {
    openapi: {
      info: { title: "Toolbox API", version: "1" },
      // The API is served at PUBLIC_URL; every path starts with /api.
      servers: [{ url: publicUrl, description: "This Toolbox (PUBLIC_URL)" }],
      components: {
        securitySchemes: {
          bearer: { type: "http", scheme: "bearer", bearerFormat: "JWT" },
          organization: { type: "apiKey", in: "header", name: "OrganizationId" },
          // API clients (docs/api.md): the embedded provider's client-credentials grant; the token
          // is then sent as a bearer token like a person's.
          ...(oidc.embedded
            ? {
                [CLIENT_CREDENTIALS_SCHEME]: {
                  type: "oauth2",
                  description: "An API client of one organization (Settings › Security): HTTP Basic with its id and secret, resource = the API's audience.",
                  flows: { clientCredentials: { tokenUrl: `${oidc.authority}/token`, scopes: {} } },
                },
              }
            : {}),
        },
      },
      security: [{ bearer: [], organization: [] }],
    },
    // The document describes the product API only; the provider and the pages are not part of it.
    transform: (input) => {
      if (!input.url.startsWith("/api/")) return { schema: { ...input.schema, hide: true }, url: input.url };
      const out = jsonSchemaTransform(input);
      const schema = out.schema as Record<string, unknown> & { response?: Responses; operationId?: string };
      const method = typeof input.route.method === "string" ? input.route.method : input.route.method[0]!;
      return {
        url: out.url,
        schema: {
          ...schema,
          operationId: schema.operationId ?? operationIdOf(method, input.url),
          response: completeResponses(input.url, schema.response ?? {}),
        },
      };
    },
    // The schemas zod names (a recursive one such as z.json()) go to components.schemas, where
    // the operations' `$ref`s point.
    transformObject: jsonSchemaTransformObject,
  });
  await app.register(swaggerUi, { routePrefix: "/api/docs" });
}
