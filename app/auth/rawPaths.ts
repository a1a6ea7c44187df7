/**
 * docs/requirements.md#r-routes raw paths: the session is marked raw and the page is let through without login.
 * The issue asks for each with and without ".html". React Router matches paths case-insensitively,
 * so the classification does too (otherwise /Health would render the health page behind a login).
 */
const RAW_PATH = /^\/(auth-callback|silent-renew|health)(\.html)?\/?$/i;

export function isRawPath(pathname: string): boolean {
  return RAW_PATH.test(pathname);
}
