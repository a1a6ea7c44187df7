import Fastify, { type FastifyInstance, type RouteOptions } from "fastify";
import compress from "@fastify/compress";
import rateLimit from "@fastify/rate-limit";
import { validatorCompiler, type ZodTypeProvider } from "fastify-type-provider-zod";
import type { AppContext } from "../context.ts";
import { registerErrorHandling } from "./errors.ts";
import { refuseNulInApiUrls, registerJsonParser } from "./json.ts";
import { loggerOptions, RequestLogController, type LogOptions } from "./logging.ts";
import { accessStatePlugin } from "./auth/accessState.ts";
import { authGuard } from "./auth/guard.ts";
import { registerApiDocs } from "./docs.ts";
import { responseSerializerCompiler } from "./serializer.ts";
import { registerSecurityHeaders } from "./securityHeaders.ts";
import { checkDocumentedStatuses } from "./contract.ts";
import { registerApi } from "../modules/index.ts";
import { registerIdentityProvider } from "../idp/index.ts";
import { registerWeb, type WebOptions } from "../web/index.ts";
import { eventBusPlugin } from "../events/plugin.ts";
import type { EventBus } from "../events/bus.ts";
import { tradeFeedPlugin, type TradeFeedPluginOptions } from "../events/tradeFeedPlugin.ts";
import { platformsPlugin } from "../modules/tradePlatforms/runtime/plugin.ts";
import type { PlatformRuntimeOptions } from "../modules/tradePlatforms/runtime/types.ts";
import { blotterStreamPlugin } from "../modules/tradesBlotter/streamPlugin.ts";
import { quotesMonitorPlugin, type QuotesMonitorPluginOptions } from "../modules/quotesMonitor/monitor/plugin.ts";
import type { BlotterStreamOptions } from "../modules/tradesBlotter/options.ts";

export interface BuildAppOptions {
  /** Serve the React app too (off in API-only tests). */
  web?: WebOptions | false;
  logger?: boolean;
  /** Where log lines go instead of stdout (tests read them back; the benchmark writes a file). */
  logStream?: LogOptions["logStream"];
  /** Trade platform runtime tuning (tests: shorter timeouts and backoff). */
  platforms?: PlatformRuntimeOptions;
  /** The event bus to use (tests: several apps on one bus); else the app makes its own. */
  bus?: EventBus;
  /** Trade feed tuning (tests: a lease store whose renewals fail). */
  tradeFeed?: TradeFeedPluginOptions;
  /** Trades Blotter stream tuning (tests: small buffers). */
  blotterStream?: BlotterStreamOptions;
  /** Quotes Monitor tuning (tests: a manual clock, faster judging). */
  quotesMonitor?: QuotesMonitorPluginOptions;
  /** Sees every route as it is registered, with its config (tests enumerate the API from it). */
  onRoute?: (route: RouteOptions) => void;
}

/**
 * The one HTTP server: API under /api, identity provider under /oidc, pages for the rest.
 * Order matters: security headers first, then the API, the provider, and the pages' catch-all.
 */
export async function buildApp(ctx: AppContext, opts: BuildAppOptions = {}): Promise<FastifyInstance> {
  const app = Fastify({
    // No tokens, codes, secrets or personal data in the log (logging.ts); written asynchronously.
    logger: opts.logger === false ? false : loggerOptions(ctx.config, { logStream: opts.logStream }),
    logController: new RequestLogController(),
    // A hop count trusts only the nearest proxies (`hop` counts from our side), never every hop.
    trustProxy: typeof ctx.config.trustProxy === "number" ? (_address: string, hop: number) => hop < (ctx.config.trustProxy as number) : ctx.config.trustProxy,
    bodyLimit: 1024 * 1024,
  }).withTypeProvider<ZodTypeProvider>();

  if (opts.onRoute) app.addHook("onRoute", opts.onRoute);
  app.setValidatorCompiler(validatorCompiler);
  // Answers are written by serializers compiled from their schemas; tests also check each with zod (serializer.ts).
  app.setSerializerCompiler(responseSerializerCompiler(ctx.config.env === "test"));
  app.decorate("ctx", ctx);

  // helmet's headers, computed once (securityHeaders.ts).
  await registerSecurityHeaders(app, {
    // The page CSP (with a per-request nonce) is set by the web layer; API answers get the strict default.
    contentSecurityPolicy: false,
    crossOriginEmbedderPolicy: false,
    strictTransportSecurity: ctx.config.publicUrl.startsWith("https://"),
  });
  // API answers are data, never documents: nothing in them may run or be framed.
  app.addHook("onSend", (request, reply, payload, done) => {
    if (request.url.startsWith("/api/") && !request.url.startsWith("/api/docs")) {
      reply.header("Content-Security-Policy", "default-src 'none'; frame-ancestors 'none'");
    }
    done(null, payload);
  });
  await app.register(compress, { global: true, threshold: 1024 });
  await app.register(rateLimit, { global: false });
  registerErrorHandling(app);
  if (ctx.config.env === "test") checkDocumentedStatuses(app);
  registerJsonParser(app);
  refuseNulInApiUrls(app);
  await registerApiDocs(app);

  await app.register(accessStatePlugin);
  await app.register(eventBusPlugin, { bus: opts.bus });
  await app.register(platformsPlugin, { runtime: opts.platforms });
  await app.register(tradeFeedPlugin, opts.tradeFeed ?? {});
  await app.register(blotterStreamPlugin, { options: opts.blotterStream });
  await app.register(quotesMonitorPlugin, opts.quotesMonitor ?? {});
  // The /api scope: the guard first, so that it sees every route (each declares its access in
  // `config`), then the modules' routes. The guard is registered here, not by the modules: they
  // never import the HTTP layer (docs/architecture.md "Layers").
  await app.register(
    async (api) => {
      await api.register(authGuard);
      await api.register(registerApi);
    },
    { prefix: "/api" },
  );
  if (ctx.config.oidc.embedded) await registerIdentityProvider(app, ctx);
  if (opts.web !== false) await registerWeb(app, ctx, opts.web ?? { mode: "production" });
  return app;
}

declare module "fastify" {
  interface FastifyInstance {
    ctx: AppContext;
  }
}
