import type { FastifyInstance } from "fastify";
import { completeResponses } from "./docs.ts";

/**
 * In tests (NODE_ENV=test), every API answer's status must be one its operation documents, as the
 * OpenAPI document shows it (the route's own responses, the guard's refusals, and the completion
 * in ./docs.ts): a 409 or 422 a route gives without saying so fails the test that made it, with a
 * 500 naming the route and the status. The body of a documented status is checked by the
 * response serializer (./serializer.ts). A 500 passes as it is: it is already a failure.
 */
export function checkDocumentedStatuses(app: FastifyInstance) {
  app.addHook("onSend", async (request, reply, payload) => {
    const url = request.routeOptions.url;
    if (!url?.startsWith("/api/") || url.startsWith("/api/docs") || reply.statusCode === 500) return payload;
    const schema = request.routeOptions.schema as { response?: Record<string, unknown>; hide?: boolean } | undefined;
    if (schema?.hide) return payload;
    const documented = Object.keys(completeResponses(url, schema?.response ?? {}));
    if (documented.includes(String(reply.statusCode))) return payload;
    throw new Error(
      `${request.method} ${url} answered ${reply.statusCode}, which its OpenAPI operation does not document (it documents ${documented.join(", ")})`,
    );
  });
}
