/**
 * Content-Security-Policy of the provider's own pages: nothing loads from anywhere, styles are
 * inline in the page, scripts run only with the response's nonce (the sign-out page's auto-submit),
 * forms post only back to this origin, and no other site may frame a sign-in page.
 */
export function idpPageCsp(opts: { publicOrigin: string; scriptNonce?: string }): string {
  const directives: Record<string, string[]> = {
    "default-src": ["'none'"],
    "script-src": opts.scriptNonce ? [`'nonce-${opts.scriptNonce}'`] : ["'none'"],
    "style-src": ["'unsafe-inline'"],
    "img-src": ["'self'", "data:"],
    // Chrome applies form-action to the redirects after a post too, so the app's origin is listed
    // for the hop back to /auth-callback or the post-logout page.
    "form-action": ["'self'", opts.publicOrigin],
    "frame-ancestors": ["'none'"],
    "base-uri": ["'none'"],
  };
  return Object.entries(directives)
    .map(([k, v]) => `${k} ${v.join(" ")}`)
    .join("; ");
}

/**
 * Baseline for everything else under /oidc (JSON, redirects, oidc-provider's own form_post page,
 * which appends the hash of its one script to `script-src`). The app may frame /oidc for silent renew.
 */
export function idpBaselineCsp(publicOrigin: string): string {
  return `default-src 'none'; script-src 'self'; style-src 'unsafe-inline'; form-action 'self' ${publicOrigin}; frame-ancestors 'self'; base-uri 'none'`;
}
