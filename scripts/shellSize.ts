/**
 * The shell's weight: the JavaScript a signed-in person's browser loads for `/`, gzip-compressed,
 * computed from the production build (`npx react-router build`).
 *
 * React Router's manifest (build/client/assets/manifest-*.js) lists, for the entry and for every
 * route, its module and the chunks it imports statically; the page preloads all of them. For `/`
 * that is the entry, the root route and the index route (`routes/home`), plus the part of the
 * manifest the server writes into the page for those routes (lazy route discovery, React Router's
 * default with SSR: the full manifest file is not loaded). Chunks imported lazily (import()) load
 * later, only when used (a menu about to open, a chart's library), and are not counted.
 *
 *   node --import tsx scripts/shellSize.ts [--json] [--verbose] [--build build]
 *
 * Prints the total in KB (1 KB = 1024 bytes); `--json` prints { totalBytes, totalKb, chunks } for the
 * benchmark. Exits 1 when there is no build.
 */
import fs from "node:fs";
import path from "node:path";
import { gzipSync } from "node:zlib";
import { brotli } from "./precompress.ts";

interface ManifestRoute {
  id: string;
  parentId?: string;
  index?: boolean;
  path?: string;
  module: string;
  imports?: string[];
}

interface Manifest {
  entry: { module: string; imports?: string[] };
  routes: Record<string, ManifestRoute>;
}

export interface ShellSize {
  /** gzip -9 of every part: comparable with the first measurements (docs/requirements.md#r-targets-shell). */
  totalBytes: number;
  totalKb: number;
  /**
   * What the browser is actually sent: each JavaScript file as its precompressed Brotli copy
   * (every current browser accepts `br`; the server serves the .br beside the file), and the
   * inline manifest as it stands in the page.
   */
  servedBytes: number;
  servedKb: number;
  rawBytes: number;
  chunks: { file: string; bytes: number; gzipBytes: number; servedBytes: number }[];
}

/** The React Router manifest of a client build, and the file it is in. */
export function readManifest(clientDir: string): { manifest: Manifest; file: string } {
  const assets = path.join(clientDir, "assets");
  const name = fs.existsSync(assets) ? fs.readdirSync(assets).find((f) => /^manifest-[\w-]+\.js$/.test(f)) : undefined;
  if (!name) throw new Error(`No React Router manifest in ${assets}: run \`npx react-router build\` first.`);
  const text = fs.readFileSync(path.join(assets, name), "utf8");
  const json = text.slice(text.indexOf("{"), text.lastIndexOf("}") + 1);
  return { manifest: JSON.parse(json) as Manifest, file: `/assets/${name}` };
}

/** The routes that render `/`: the index route at the top and its parents up to the root. */
export function routesForHome(manifest: Manifest): ManifestRoute[] {
  const home = Object.values(manifest.routes).find((r) => r.index && r.parentId === "root");
  if (!home) throw new Error("The manifest has no index route under root.");
  const chain: ManifestRoute[] = [];
  for (let route: ManifestRoute | undefined = home; route; route = route.parentId ? manifest.routes[route.parentId] : undefined) chain.unshift(route);
  return chain;
}

export function shellSize(buildDir = "build"): ShellSize {
  const clientDir = path.resolve(buildDir, "client");
  const { manifest } = readManifest(clientDir);
  const routes = routesForHome(manifest);
  const files = new Set<string>([manifest.entry.module, ...(manifest.entry.imports ?? [])]);
  for (const route of routes) for (const f of [route.module, ...(route.imports ?? [])]) files.add(f);
  const measure = (file: string, content: Buffer, served: (content: Buffer) => number) => ({
    file,
    bytes: content.length,
    gzipBytes: gzipSync(content, { level: 9 }).length,
    servedBytes: served(content),
  });
  const chunks = [...files].map((f) => measure(f, fs.readFileSync(path.join(clientDir, f)), (content) => brotli(content).length));
  // The inline script React Router writes into the page: the manifest of the routes rendered.
  const partial = { entry: manifest.entry, routes: Object.fromEntries(routes.map((r) => [r.id, r])) };
  // Pages are sent by React Router itself (not compressed by Fastify): the inline part counts in full.
  chunks.push(
    measure("(inline) window.__reactRouterManifest", Buffer.from(`window.__reactRouterManifest = ${JSON.stringify(partial, null, 2)};`), (c) => c.length),
  );
  chunks.sort((a, b) => b.gzipBytes - a.gzipBytes);
  const totalBytes = chunks.reduce((sum, c) => sum + c.gzipBytes, 0);
  const servedBytes = chunks.reduce((sum, c) => sum + c.servedBytes, 0);
  const kb = (bytes: number) => Math.round((bytes / 1024) * 10) / 10;
  return { totalBytes, totalKb: kb(totalBytes), servedBytes, servedKb: kb(servedBytes), rawBytes: chunks.reduce((sum, c) => sum + c.bytes, 0), chunks };
}

function main(args: string[]) {
  const at = args.indexOf("--build");
  const size = shellSize(at >= 0 ? args[at + 1] : "build");
  if (args.includes("--json")) {
    console.log(JSON.stringify(size, null, 2));
    return;
  }
  if (args.includes("--verbose")) {
    for (const c of size.chunks)
      console.log(`${(c.servedBytes / 1024).toFixed(1).padStart(7)} KB sent  ${(c.gzipBytes / 1024).toFixed(1).padStart(7)} KB gzip  ${c.file}`);
  }
  console.log(
    `Shell for / (signed in): ${size.servedKb} KB sent (Brotli) · ${size.totalKb} KB gzip · ${Math.round(size.rawBytes / 1024)} KB uncompressed, in ${size.chunks.length} files`,
  );
}

if (import.meta.url === `file://${process.argv[1]}`) {
  process.stdout.on("error", () => process.exit(0)); // piped into `head`
  try {
    main(process.argv.slice(2));
  } catch (error) {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  }
}
