/** A readable before/after diff of two JSON values: one line per changed leaf, by dotted path. */
export interface DiffLine {
  path: string;
  kind: "added" | "removed" | "changed" | "same";
  before?: string;
  after?: string;
}

function flatten(value: unknown, prefix: string, out: Map<string, string>) {
  if (value !== null && typeof value === "object" && !Array.isArray(value) && Object.keys(value).length > 0) {
    for (const [key, inner] of Object.entries(value)) flatten(inner, prefix ? `${prefix}.${key}` : key, out);
    return;
  }
  out.set(prefix || "(value)", typeof value === "string" ? value : JSON.stringify(value));
}

export function diffLines(before: unknown, after: unknown): DiffLine[] {
  const a = new Map<string, string>();
  const b = new Map<string, string>();
  if (before !== null && before !== undefined) flatten(before, "", a);
  if (after !== null && after !== undefined) flatten(after, "", b);
  const paths = [...new Set([...a.keys(), ...b.keys()])].sort();
  return paths.map((path) => {
    const was = a.get(path);
    const now = b.get(path);
    if (was === undefined) return { path, kind: "added", after: now };
    if (now === undefined) return { path, kind: "removed", before: was };
    return { path, kind: was === now ? "same" : "changed", before: was, after: now };
  });
}
