import type { IncomingMessage } from "node:http";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type Provider from "oidc-provider";
import { logCompleted } from "../http/logging.ts";
import { idpBaselineCsp } from "./views/csp.ts";

export const OIDC_PREFIX = "/oidc";

/**
 * Hands every /oidc request to oidc-provider (a Koa app), the way its docs mount it under a path:
 * the raw request and response go to `provider.callback()`, with `req.url` stripped of the prefix
 * and `req.originalUrl` kept so the provider builds its URLs with the prefix. Bodies stay unread
 * for the provider's own parsers. Routes registered elsewhere under /oidc (the sign-in pages) are
 * more specific and win over the wildcard.
 */
export async function mountProvider(app: FastifyInstance, opts: { provider: Provider; publicUrl: string }) {
  const callback = opts.provider.callback();
  const publicUrl = new URL(opts.publicUrl);
  const baselineCsp = idpBaselineCsp(publicUrl.origin);

  await app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser("*", (_req, _payload, done) => done(null));

    const handle = async (request: FastifyRequest, reply: FastifyReply) => {
      const req = request.raw as IncomingMessage & { originalUrl?: string };
      const url = req.url ?? OIDC_PREFIX;
      let rest = url.slice(OIDC_PREFIX.length);
      if (!rest.startsWith("/")) rest = `/${rest}`;
      req.originalUrl = url;
      req.url = rest;
      // The issuer is fixed, so every URL the provider prints (discovery, redirects) is built from
      // PUBLIC_URL, never from whatever Host header the request came with.
      req.headers.host = publicUrl.host;
      if (req.headers["x-forwarded-host"]) req.headers["x-forwarded-host"] = publicUrl.host;
      reply.raw.setHeader("Content-Security-Policy", baselineCsp);
      reply.hijack();
      try {
        await callback(req, reply.raw);
      } finally {
        req.url = url;
      }
      // A hijacked reply skips Fastify's onResponse hooks, so its one log line is written here.
      logCompleted(request, reply);
    };
    const methods = ["GET", "POST", "OPTIONS"] as const;
    scope.route({ method: [...methods], url: OIDC_PREFIX, handler: handle });
    scope.route({ method: [...methods], url: `${OIDC_PREFIX}/*`, handler: handle });
  });
}
