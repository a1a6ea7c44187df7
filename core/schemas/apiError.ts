/**
 * The body of every API error (server/http/errors.ts answers with it), for the OpenAPI document:
 * the guard's documented answers (server/http/auth/docs.ts) and a route's own (a 409 with a
 * `code`). Here rather than in server/http/ because the modules' routes name it, and they do not
 * import the HTTP layer (docs/architecture.md "Layers").
 */
import { z } from "zod";

export const ApiErrorSchema = z.object({
  statusCode: z.number().int(),
  error: z.string(),
  message: z.string().meta({ description: "What went wrong, readable by a person" }),
  issues: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
  code: z.string().optional().meta({
    description:
      "Machine-readable reason, where a client acts on it: `address_not_allowed`, `two_factor_required`, `session_time_unknown` (403), `session_expired` (401), `excludes_own_address` (409)",
  }),
});

/** A route's own refusal for its `response` map, e.g. `409: refusal("The name is taken")`. */
export function refusal(description: string) {
  return ApiErrorSchema.meta({ description });
}
