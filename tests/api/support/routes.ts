/**
 * The API's operations as the real app registers them (its `onRoute` hook), so a test that walks
 * every operation covers a route added later without anyone listing it.
 */
import type { RouteOptions } from "fastify";

export interface Operation {
  method: string;
  url: string;
  hasBody: boolean;
  hasQuery: boolean;
  /** Names of the query string's fields, when the route declares a zod object for it. */
  queryFields: string[];
}

export const keyOf = (op: Operation) => `${op.method} ${op.url}`;

/** The API's documentation (@fastify/swagger-ui, registered outside the API): public, see health.test.ts. */
const DOCS = "/api/docs";

/** The API's operations, one per method, from a route as the app registers it. */
export function operationsOf(route: RouteOptions): Operation[] {
  if (!route.url.startsWith("/api") || route.url === DOCS || route.url.startsWith(`${DOCS}/`)) return [];
  const methods = [route.method].flat();
  const hasBody = Boolean(route.schema?.body);
  const query = route.schema?.querystring as { shape?: Record<string, unknown> } | undefined;
  const base = { url: route.url, hasBody, hasQuery: Boolean(query), queryFields: Object.keys(query?.shape ?? {}) };
  // A catch-all answers every method alike.
  if (methods.length > 2) return [{ method: "ALL", ...base }];
  return methods.map((method) => ({ method, ...base }));
}
