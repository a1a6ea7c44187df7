/**
 * Content-Security-Policy of the pages: scripts only from this origin or with the request's nonce,
 * connections only to this origin and the identity provider. Development adds Vite's websocket.
 */
export function contentSecurityPolicy(nonce: string, opts: { dev: boolean; authority: string }): string {
  const idp = new URL(opts.authority).origin;
  const directives: Record<string, string[]> = {
    "default-src": ["'self'"],
    "script-src": ["'self'", `'nonce-${nonce}'`, ...(opts.dev ? ["'unsafe-inline'"] : [])],
    "style-src": ["'self'", "'unsafe-inline'"],
    "img-src": ["'self'", "data:"],
    "font-src": ["'self'", "data:"],
    "connect-src": ["'self'", idp, ...(opts.dev ? ["ws:"] : [])],
    // The silent-renew iframe loads the provider; nothing may frame Toolbox itself.
    "frame-src": ["'self'", idp],
    "frame-ancestors": ["'self'"],
    "form-action": ["'self'", idp],
    "base-uri": ["'self'"],
    "object-src": ["'none'"],
  };
  return Object.entries(directives)
    .map(([k, v]) => `${k} ${v.join(" ")}`)
    .join("; ");
}
