import { isRawPath } from "./rawPaths";

/** pathname + search + hash of the page the browser shows. */
export function currentPath(): string {
  const { pathname, search, hash } = window.location;
  return pathname + search + hash;
}

const PROBE_ORIGIN = "https://toolbox.invalid";

/**
 * A return target we are willing to navigate to: a path on this origin (no open redirect).
 * Browsers read "//evil.example" — and a backslash or a tab in place of its second slash — as
 * another host, so the value is resolved the way a browser would and kept only if it stays here.
 */
export function safeReturnPath(value: unknown): string | null {
  if (typeof value !== "string" || !value.startsWith("/")) return null;
  let resolved: URL;
  try {
    resolved = new URL(value, PROBE_ORIGIN);
  } catch {
    return null;
  }
  if (resolved.origin !== PROBE_ORIGIN) return null;
  return resolved.pathname + resolved.search + resolved.hash;
}

/**
 * What the guard stores as the post-login target for a path: the path itself, except for pages that
 * only make sense once (the callbacks), which return to the site root instead.
 */
export function returnTargetFor(fullPath: string): string | null {
  const pathname = fullPath.split(/[?#]/, 1)[0] ?? "/";
  if (isRawPath(pathname) || /^\/logout-callback(\.html)?\/?$/i.test(pathname)) return "/";
  return safeReturnPath(fullPath);
}

/** docs/requirements.md#r-routes: without a stored target, a callback returns to its parent path ("/auth-callback" → "/"). */
export function parentPath(pathname: string): string {
  const parent = pathname.replace(/\/+$/, "").replace(/\/[^/]*$/, "");
  return parent === "" ? "/" : parent;
}
