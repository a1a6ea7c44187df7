import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { gzipSync } from "node:zlib";
import { afterEach, describe, expect, it } from "vitest";
import { shellSize } from "../../scripts/shellSize";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

/** A client build with the given chunks and React Router manifest. */
function fakeBuild(chunks: Record<string, string>, manifest: unknown): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "shell-size-"));
  dirs.push(dir);
  fs.mkdirSync(path.join(dir, "client", "assets"), { recursive: true });
  for (const [name, text] of Object.entries(chunks)) fs.writeFileSync(path.join(dir, "client", "assets", name), text);
  fs.writeFileSync(path.join(dir, "client", "assets", "manifest-abc123.js"), `window.__reactRouterManifest=${JSON.stringify(manifest)};`);
  return dir;
}

describe("scripts/shellSize.ts: the JavaScript / loads, from the build manifest", () => {
  it("counts the entry, the root and index routes with their static imports, and the inline manifest; not other routes or lazy chunks", () => {
    const code = (name: string) => `export const ${name} = ${JSON.stringify(name.repeat(50))};`;
    const chunks = Object.fromEntries(["entry", "react", "root", "shared", "home", "users", "grid", "lazy"].map((n) => [`${n}.js`, code(n)]));
    const manifest = {
      entry: { module: "/assets/entry.js", imports: ["/assets/react.js"] },
      routes: {
        root: { id: "root", path: "", module: "/assets/root.js", imports: ["/assets/react.js", "/assets/shared.js"] },
        "routes/home": { id: "routes/home", parentId: "root", index: true, module: "/assets/home.js", imports: ["/assets/shared.js"] },
        "routes/users": { id: "routes/users", parentId: "root", path: "users", module: "/assets/users.js", imports: ["/assets/grid.js"] },
      },
    };
    const size = shellSize(fakeBuild(chunks, manifest));
    expect(size.chunks.map((c) => c.file).sort()).toEqual(
      ["(inline) window.__reactRouterManifest", "/assets/entry.js", "/assets/home.js", "/assets/react.js", "/assets/root.js", "/assets/shared.js"].sort(),
    );
    const gz = (name: string) => gzipSync(Buffer.from(chunks[`${name}.js`]!), { level: 9 }).length;
    const inline = size.chunks.find((c) => c.file.startsWith("(inline)"))!;
    expect(size.totalBytes).toBe(gz("entry") + gz("react") + gz("root") + gz("shared") + gz("home") + inline.gzipBytes);
    expect(size.totalKb).toBe(Math.round((size.totalBytes / 1024) * 10) / 10);
  });

  it("says what is missing when there is no build", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "shell-size-"));
    dirs.push(dir);
    expect(() => shellSize(dir)).toThrow(/run `npx react-router build` first/);
  });
});
