import type { FastifyInstance } from "fastify";
import type { AppContext } from "../context.ts";

/** The embedded OpenID Connect provider under /oidc (filled in by the identity-provider work). */
export async function registerIdentityProvider(_app: FastifyInstance, _ctx: AppContext) {}
