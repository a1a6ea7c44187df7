import { html } from "./html.ts";
import { layout } from "./layout.ts";
import { field, formAlert, type FormErrors } from "./pages.ts";

export interface EnrolmentView {
  homeUrl: string;
  action: string;
  restartUrl: string;
  /** The new secret in base32 (to type by hand) and its QR code as an SVG data URL. */
  secret: string;
  qrCode: string;
  errors?: FormErrors<"code">;
}

/**
 * The sign-in step after an administrator reset the person's two-factor: they set up a new device
 * before the sign-in completes. The QR code is an image from a data URL (the pages' CSP allows
 * `img-src data:`); the secret is shown for typing by hand.
 */
export function enrolmentPage(v: EnrolmentView): string {
  const e = v.errors ?? {};
  const spaced = v.secret.match(/.{1,4}/g)?.join(" ") ?? v.secret;
  const body = html`<h1>Set up two-factor sign-in</h1>
<p class="lead">An administrator reset your two-factor sign-in. Set up your authenticator app again to finish signing in.</p>
${formAlert(e.form)}
<p>1. Scan this code with your authenticator app:</p>
<p style="text-align:center"><img src="${v.qrCode}" alt="QR code of your two-factor secret" width="200" height="200" style="background:#fff;border-radius:8px"></p>
<p class="hint">Or type this key: <code id="secret">${spaced}</code></p>
<p>2. Enter the 6-digit code it shows:</p>
<form method="post" action="${v.action}">
${field({ id: "code", label: "Authentication code", type: "text", autocomplete: "one-time-code", error: e.code, autofocus: true, maxlength: 64 })}
<button class="button" type="submit">Turn on and continue</button>
</form>
<p class="alt"><a href="${v.restartUrl}">Sign in with another account</a></p>`;
  return layout({ title: "Set up two-factor sign-in", body, homeUrl: v.homeUrl });
}

/** After the enrolment at sign-in: the recovery codes, shown this once, then on to Toolbox. */
export function recoveryCodesPage(v: { homeUrl: string; continueUrl: string; codes: readonly string[] }): string {
  const body = html`<h1>Two-factor sign-in is on</h1>
<p class="lead">Keep these recovery codes somewhere safe. Each one signs you in once if you lose your device. They are shown only now.</p>
<ul id="recovery-codes" style="font-family:ui-monospace,monospace;columns:2;padding-left:20px">
${v.codes.map((c) => html`<li>${c}</li>`)}
</ul>
<a class="button" href="${v.continueUrl}">Continue to Toolbox</a>`;
  return layout({ title: "Recovery codes", body, homeUrl: v.homeUrl });
}
