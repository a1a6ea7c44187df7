/**
 * MetaTrader masks for groups and symbols: comma-separated patterns, `*` matches any run of
 * characters, a leading `!` excludes. Exclusions are checked first, so "*,!demo*" means every
 * group except the demo ones. Case-insensitive, as on the platforms. An empty mask matches all.
 */
export function compileMask(mask: string): (name: string) => boolean {
  const parts = mask
    .split(",")
    .map((p) => p.trim())
    .filter(Boolean);
  if (parts.length === 0) return () => true;
  const excludes = parts.filter((p) => p.startsWith("!")).map((p) => p.slice(1).toLowerCase());
  const includes = parts.filter((p) => !p.startsWith("!")).map((p) => p.toLowerCase());
  return (name) => {
    const n = name.toLowerCase();
    if (excludes.some((p) => wildcardMatch(p, n))) return false;
    // A mask of exclusions only ("!demo*") means "everything else".
    return includes.length === 0 || includes.some((p) => wildcardMatch(p, n));
  };
}

export function matchesMask(mask: string, name: string): boolean {
  return compileMask(mask)(name);
}

/**
 * `*`-only glob match in linear time (two pointers, back-tracking only to the last star). A
 * regular expression with many `.*` back-tracks exponentially: a mask of a few dozen stars from
 * a request would freeze the server's only event loop.
 */
export function wildcardMatch(pattern: string, text: string): boolean {
  let p = 0;
  let t = 0;
  let star = -1;
  let resume = 0;
  while (t < text.length) {
    if (p < pattern.length && pattern[p] !== "*" && pattern[p] === text[t]) {
      p++;
      t++;
    } else if (p < pattern.length && pattern[p] === "*") {
      star = p++;
      resume = t;
    } else if (star !== -1) {
      p = star + 1;
      t = ++resume;
    } else {
      return false;
    }
  }
  while (p < pattern.length && pattern[p] === "*") p++;
  return p === pattern.length;
}
