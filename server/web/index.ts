import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import fastifyStatic from "@fastify/static";
import { createRequestListener } from "@react-router/node";
import type { ServerBuild } from "react-router";
import type { AppContext } from "../context.ts";
import { publicConfig } from "../config.ts";
import { contentSecurityPolicy } from "./csp.ts";
import { registerBuildManifest, readBuildInfo } from "./builds.ts";
import type { ToolboxLoadContext } from "../../core/loadContext.ts";

export interface WebOptions {
  /** production: serve ./build; development: Vite in middleware mode with hot reload. */
  mode: "production" | "development";
  /** Folder holding client/ and server/ of `react-router build`. */
  buildDir?: string;
}

const NONCE_HEADER = "x-toolbox-csp-nonce";

/**
 * Pages: React Router's request handler behind Fastify. The body of a page request is left
 * unread so React Router actions get the raw stream (Fastify has no form parser).
 */
export async function registerWeb(app: FastifyInstance, ctx: AppContext, opts: WebOptions) {
  const buildDir = path.resolve(opts.buildDir ?? "build");
  const dev = opts.mode === "development";
  const info = dev ? { id: "dev", builtAt: new Date().toISOString(), version: process.env.npm_package_version ?? "0.0.0" } : readBuildInfo(buildDir);
  const config = publicConfig(ctx.config, info.id);

  let build: ServerBuild | (() => Promise<ServerBuild>);
  if (dev) {
    const vite = await import("vite").then((v) =>
      v.createServer({ server: { middlewareMode: true, hmr: { port: 24678 + (ctx.config.port % 1000) } }, appType: "custom" }),
    );
    await app.register((await import("@fastify/middie")).default);
    app.use(vite.middlewares);
    app.addHook("onClose", () => vite.close());
    build = () => vite.ssrLoadModule("virtual:react-router/server-build") as Promise<ServerBuild>;
  } else {
    build = (await import(pathToImport(path.join(buildDir, "server", "index.js")))) as ServerBuild;
    await app.register(fastifyStatic, {
      root: path.join(buildDir, "client"),
      prefix: "/",
      wildcard: false,
      index: false,
      // build/client holds a .br and a .gz beside each compressible file (scripts/precompress.ts).
      preCompressed: true,
      // Hashed file names never change, so browsers may keep them for a year.
      setHeaders: (res, filePath) => {
        if (filePath.includes(`${path.sep}assets${path.sep}`)) res.setHeader("Cache-Control", "public, max-age=31536000, immutable");
      },
    });
  }
  registerBuildManifest(app, info);

  const listener = createRequestListener({
    build,
    mode: dev ? "development" : "production",
    getLoadContext: (request): ToolboxLoadContext => ({
      config,
      cspNonce: request.headers.get(NONCE_HEADER) ?? "",
    }),
  });

  await app.register(async (pages) => {
    // Leave page bodies unread for React Router.
    pages.removeAllContentTypeParsers();
    pages.addContentTypeParser("*", (_req, _payload, done) => done(null));
    const handle = async (request: FastifyRequest, reply: FastifyReply) => {
      const nonce = crypto.randomBytes(16).toString("base64");
      // React Router builds its Request from rawHeaders; drop any copy the client sent, add ours.
      const raw = request.raw.rawHeaders;
      for (let i = raw.length - 2; i >= 0; i -= 2) if (raw[i]?.toLowerCase() === NONCE_HEADER) raw.splice(i, 2);
      raw.push(NONCE_HEADER, nonce);
      reply.raw.setHeader("Content-Security-Policy", contentSecurityPolicy(nonce, { dev, authority: ctx.config.oidc.authority }));
      reply.hijack();
      // Hijacked: the listener answers on reply.raw itself and returns nothing to wait for.
      listener(request.raw, reply.raw);
    };
    pages.route({ method: ["GET", "HEAD", "POST"], url: "/*", handler: handle });
    pages.route({ method: ["GET", "HEAD"], url: "/", handler: handle });
  });
}

function pathToImport(p: string) {
  if (!fs.existsSync(p)) throw new Error(`No build at ${p}: run \`npm run build\` first.`);
  return new URL(`file://${p}`).href;
}

declare module "react-router" {
  // Loaders read `context.config` and `context.cspNonce` with their types.
  interface AppLoadContext extends ToolboxLoadContext {}
}
