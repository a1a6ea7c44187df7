/**
 * MetaTrader masks for groups and symbols: comma-separated patterns, `*` matches any run of
 * characters, a leading `!` excludes. Exclusions are checked first, so "*,!demo*" means every
 * group except the demo ones. Case-insensitive, as on the platforms. An empty mask matches all.
 */
export function compileMask(mask: string): (name: string) => boolean {
  const parts = mask.split(",").map((p) => p.trim()).filter(Boolean);
  if (parts.length === 0) return () => true;
  const excludes = parts.filter((p) => p.startsWith("!")).map((p) => toRegExp(p.slice(1)));
  const includes = parts.filter((p) => !p.startsWith("!")).map(toRegExp);
  return (name) => {
    if (excludes.some((re) => re.test(name))) return false;
    // A mask of exclusions only ("!demo*") means "everything else".
    return includes.length === 0 || includes.some((re) => re.test(name));
  };
}

export function matchesMask(mask: string, name: string): boolean {
  return compileMask(mask)(name);
}

function toRegExp(pattern: string): RegExp {
  const escaped = pattern.replace(/[.+?^${}()|[\]\\]/g, "\\$&").replace(/\*/g, ".*");
  return new RegExp(`^${escaped}$`, "i");
}
