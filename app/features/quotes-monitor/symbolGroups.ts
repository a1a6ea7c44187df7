/**
 * The grid's symbol-group filter (docs/quotes-monitor.md): a symbol's group is its path on the
 * platform ("Forex\\Majors"); picking a group keeps its symbols and those of the groups under it.
 * The choices are every group and parent group the rows have shown, sorted. MT5's path ends with
 * the symbol's own name ("Forex\\Majors\\EURUSD"): that last part is the symbol, not a group.
 */

/** A symbol's group path: its path without the symbol's own name at the end. */
export function groupPathOf(path: string, symbol: string): string {
  const parts = path.split("\\").filter((p) => p !== "");
  if (parts.at(-1) === symbol) parts.pop();
  return parts.join("\\");
}

/** The group and each parent of a path: "Forex\\Majors" → ["Forex", "Forex\\Majors"]. */
export function groupsOfPath(path: string): string[] {
  const parts = path.split("\\").filter((p) => p !== "");
  return parts.map((_, i) => parts.slice(0, i + 1).join("\\"));
}

/** Adds the groups of `paths` to `known`; true when one was new. */
export function learnGroups(known: Set<string>, paths: Iterable<string>): boolean {
  let grew = false;
  for (const path of paths)
    for (const group of groupsOfPath(path))
      if (!known.has(group)) {
        known.add(group);
        grew = true;
      }
  return grew;
}

/** Whether a symbol of `path` is in `group` or under it. */
export function inGroup(path: string, group: string): boolean {
  const normalized = groupsOfPath(path).at(-1) ?? "";
  return normalized === group || normalized.startsWith(`${group}\\`);
}
