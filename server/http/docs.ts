import type { FastifyInstance } from "fastify";
import swagger from "@fastify/swagger";
import swaggerUi from "@fastify/swagger-ui";
import { jsonSchemaTransform } from "fastify-type-provider-zod";

/** OpenAPI document built from the routes' zod schemas, with a reference page at /api/docs. */
export async function registerApiDocs(app: FastifyInstance) {
  await app.register(swagger, {
    openapi: {
      info: { title: "Toolbox API", version: "1" },
      components: {
        securitySchemes: {
          bearer: { type: "http", scheme: "bearer", bearerFormat: "JWT" },
          organization: { type: "apiKey", in: "header", name: "OrganizationId" },
        },
      },
      security: [{ bearer: [], organization: [] }],
    },
    // The document describes the product API only; the provider and the pages are not part of it.
    transform: (input) => (input.url.startsWith("/api/") ? jsonSchemaTransform(input) : { schema: { ...input.schema, hide: true }, url: input.url }),
  });
  await app.register(swaggerUi, { routePrefix: "/api/docs" });
}
