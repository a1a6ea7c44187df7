import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import type { FastifyInstance } from "fastify";

export interface BuildInfo {
  id: string;
  builtAt: string;
  version: string;
}

/** The build's id is the hash of its server bundle: a new build, a new id. */
export function readBuildInfo(buildDir: string): BuildInfo {
  const serverEntry = path.join(buildDir, "server", "index.js");
  const stat = fs.statSync(serverEntry);
  const id = crypto.createHash("sha256").update(fs.readFileSync(serverEntry)).digest("hex").slice(0, 12);
  const pkg = JSON.parse(fs.readFileSync(path.resolve("package.json"), "utf8")) as { version: string };
  return { id, builtAt: stat.mtime.toISOString(), version: pkg.version };
}

/** docs/requirements.md#r-calls "App delivery": builds/latest.json and builds/meta/{buildId}.json, never cached. */
export function registerBuildManifest(app: FastifyInstance, info: BuildInfo) {
  app.get("/builds/latest.json", { schema: { hide: true } }, async (_req, reply) => {
    reply.header("Cache-Control", "no-store");
    return { id: info.id, timestamp: Date.parse(info.builtAt) };
  });
  app.get<{ Params: { buildId: string } }>("/builds/meta/:buildId", { schema: { hide: true } }, async (req, reply) => {
    const wanted = req.params.buildId.replace(/\.json$/, "");
    if (wanted !== info.id) return reply.status(404).send({ statusCode: 404, error: "Not Found", message: "Unknown build" });
    reply.header("Cache-Control", "public, max-age=31536000, immutable");
    return { id: info.id, timestamp: Date.parse(info.builtAt), version: info.version, matcher: {}, prerendered: [] };
  });
}
