// @vitest-environment node
/**
 * The server's files stay small enough to read whole (docs/architecture.md "Files"): none over 500
 * lines, and one over 300 opens with a comment saying the one idea it holds. Helpers and tests are
 * not held to it; generated files (migrations) are left out.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../..", import.meta.url));
const MAX_LINES = 500;
const EXPLAINED_ABOVE = 300;

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === "migrations" ? [] : sources(path);
    return /\.tsx?$/.test(entry.name) ? [path] : [];
  });
}

const files = sources(join(root, "server")).map((path) => {
  const text = readFileSync(path, "utf8");
  return { file: relative(root, path), text, lines: text.split("\n").length - (text.endsWith("\n") ? 1 : 0) };
});

/** The opening block comment, after any `// @…` pragma lines; empty when the file opens otherwise. */
function openingComment(text: string): string {
  const body = text.replace(/^(\/\/[^\n]*\n)*/, "");
  const match = /^\/\*\*([\s\S]*?)\*\//.exec(body);
  return match?.[1]?.replace(/^\s*\*\s?/gm, "").trim() ?? "";
}

describe("server file size", () => {
  it("finds the server's files", () => {
    expect(files.length).toBeGreaterThan(100);
  });

  it(`no server file is over ${MAX_LINES} lines`, () => {
    const long = files.filter((f) => f.lines > MAX_LINES).map((f) => `${f.file}: ${f.lines} lines`);
    expect(long).toEqual([]);
  });

  it(`a server file over ${EXPLAINED_ABOVE} lines says its one idea in its opening comment`, () => {
    // A sentence or more: a bare title is not an idea.
    const unexplained = files.filter((f) => f.lines > EXPLAINED_ABOVE && openingComment(f.text).length < 80).map((f) => `${f.file}: ${f.lines} lines`);
    expect(unexplained).toEqual([]);
  });

  it("reads an opening comment after a pragma, and none where the file opens with code", () => {
    expect(openingComment("// @vitest-environment node\n/**\n * One idea: a thing.\n */\nexport {};\n")).toBe("One idea: a thing.");
    expect(openingComment("import x from 'y';\n/** Not opening. */\n")).toBe("");
  });
});
