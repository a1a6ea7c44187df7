import type { FastifyInstance } from "fastify";
import swagger from "@fastify/swagger";
import swaggerUi from "@fastify/swagger-ui";
import { jsonSchemaTransform } from "fastify-type-provider-zod";
import { CLIENT_CREDENTIALS_SCHEME } from "./auth/docs.ts";

/** OpenAPI document built from the routes' zod schemas, with a reference page at /api/docs. */
export async function registerApiDocs(app: FastifyInstance) {
  const { oidc } = app.ctx.config;
  await app.register(swagger, {
    openapi: {
      info: { title: "Toolbox API", version: "1" },
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
    transform: (input) => (input.url.startsWith("/api/") ? jsonSchemaTransform(input) : { schema: { ...input.schema, hide: true }, url: input.url }),
  });
  await app.register(swaggerUi, { routePrefix: "/api/docs" });
}
