import type { FastifyBaseLogger } from "fastify";
import type { ErrorOut, KoaContextWithOIDC } from "oidc-provider";
import { idpPageCsp } from "./views/csp.ts";
import { errorPage } from "./views/pages.ts";

/** What a person reads for the provider errors that reach a browser; never a stack trace. */
export function describeProviderError(out: ErrorOut, status: number): { title: string; message: string } {
  if (status >= 500 || out.error === "server_error") {
    return { title: "Something went wrong", message: "The sign-in service had a problem. Please try again in a moment." };
  }
  if (out.error === "invalid_request" && /interaction|session/i.test(out.error_description ?? "")) {
    return { title: "Sign-in expired", message: "This sign-in page has expired. Go back to Toolbox and sign in again." };
  }
  // Protocol errors (bad redirect_uri, unknown client …) are the provider's own short texts: safe to show.
  const detail = out.error_description ? `${out.error_description} (${out.error})` : out.error;
  return { title: "Sign-in request refused", message: `Toolbox could not accept this sign-in request: ${detail}.` };
}

/** oidc-provider's `renderError`: the styled error page, with the status the provider chose. */
export function renderProviderError(
  ctx: KoaContextWithOIDC,
  out: ErrorOut,
  error: Error,
  opts: { publicOrigin: string; homeUrl: string; log: FastifyBaseLogger },
) {
  const status = ctx.status >= 400 ? ctx.status : 500;
  if (status >= 500) opts.log.error({ err: error }, "identity provider error page");
  const { title, message } = describeProviderError(out, status);
  ctx.set("Content-Security-Policy", idpPageCsp({ publicOrigin: opts.publicOrigin }));
  ctx.type = "html";
  ctx.body = errorPage({ homeUrl: opts.homeUrl, title, message });
}
