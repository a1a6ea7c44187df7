import { html, raw, type SafeHtml } from "./html.ts";
import { layout } from "./layout.ts";

/** Messages next to fields; `form` is the one at the top of the card. */
export type FormErrors<F extends string> = Partial<Record<F | "form", string>>;

interface FieldOptions {
  id: string;
  label: string;
  type: string;
  autocomplete: string;
  value?: string;
  error?: string;
  hint?: string;
  required?: boolean;
  autofocus?: boolean;
  minlength?: number;
  maxlength?: number;
}

export function field(f: FieldOptions): SafeHtml {
  const described = [f.hint ? `${f.id}-hint` : "", f.error ? `${f.id}-error` : ""].filter(Boolean).join(" ");
  return html`<div class="field">
<label for="${f.id}">${f.label}</label>
<input id="${f.id}" name="${f.id}" type="${f.type}" autocomplete="${f.autocomplete}"${f.value !== undefined ? html` value="${f.value}"` : ""}${
    f.required === false ? "" : raw(" required")
  }${f.autofocus ? raw(" autofocus") : ""}${f.minlength ? html` minlength="${f.minlength}"` : ""}${
    f.maxlength ? html` maxlength="${f.maxlength}"` : ""
  }${f.error ? raw(' aria-invalid="true"') : ""}${described ? html` aria-describedby="${described}"` : ""}>
${f.hint ? html`<div class="hint" id="${f.id}-hint">${f.hint}</div>` : ""}
${f.error ? html`<div class="field-error" id="${f.id}-error">${f.error}</div>` : ""}
</div>`;
}

export function formAlert(message: string | undefined): SafeHtml | "" {
  return message ? html`<div class="alert" role="alert">${message}</div>` : "";
}

export interface SignInView {
  homeUrl: string;
  action: string;
  /** Absent when sign-up is off (SIGN_UP=off): no link to it. */
  signUpUrl?: string;
  /** "Forgot your password?": absent when no e-mail can be sent (production without SMTP_URL). */
  forgotPasswordUrl?: string;
  email?: string;
  errors?: FormErrors<"email" | "password">;
}

export function signInPage(v: SignInView): string {
  const e = v.errors ?? {};
  const focusPassword = Boolean(v.email) && !e.email;
  const body = html`<h1>Sign in to Toolbox</h1>
<p class="lead">Use your Toolbox account to continue.</p>
${formAlert(e.form)}
<form method="post" action="${v.action}">
${field({ id: "email", label: "Email", type: "email", autocomplete: "username", value: v.email ?? "", error: e.email, autofocus: !focusPassword, maxlength: 254 })}
${field({ id: "password", label: "Password", type: "password", autocomplete: "current-password", error: e.password, autofocus: focusPassword })}
<button class="button" type="submit">Sign in</button>
</form>
${v.forgotPasswordUrl ? html`<p class="alt"><a href="${v.forgotPasswordUrl}">Forgot your password?</a></p>` : ""}
${v.signUpUrl ? html`<p class="alt">New to Toolbox? <a href="${v.signUpUrl}">Create an account</a></p>` : ""}`;
  return layout({ title: "Sign in", body, homeUrl: v.homeUrl });
}

export interface TwoFactorView {
  homeUrl: string;
  action: string;
  /** Where to start over with another account. */
  restartUrl: string;
  errors?: FormErrors<"code">;
}

/** The second step of a sign-in with two-factor: a code from the app, or a recovery code. */
export function twoFactorPage(v: TwoFactorView): string {
  const e = v.errors ?? {};
  const body = html`<h1>Two-factor sign-in</h1>
<p class="lead">Enter the 6-digit code from your authenticator app.</p>
${formAlert(e.form)}
<form method="post" action="${v.action}">
${field({
  id: "code",
  label: "Authentication code",
  type: "text",
  autocomplete: "one-time-code",
  error: e.code,
  hint: "Lost your device? Enter one of your recovery codes instead.",
  autofocus: true,
  maxlength: 64,
})}
<button class="button" type="submit">Verify</button>
</form>
<p class="alt"><a href="${v.restartUrl}">Sign in with another account</a></p>`;
  return layout({ title: "Two-factor sign-in", body, homeUrl: v.homeUrl });
}

export interface SignUpView {
  homeUrl: string;
  action: string;
  signInUrl: string;
  values?: { name?: string; email?: string };
  errors?: FormErrors<"name" | "email" | "password" | "confirmPassword">;
  minPasswordLength: number;
  maxPasswordLength: number;
  /** SIGN_UP=invite-only: only invited e-mail addresses may create an account. */
  inviteOnly?: boolean;
  /** The person follows an invitation link: they join the organization that invited them. */
  invited?: boolean;
}

function signUpLead(v: SignUpView): string {
  if (v.invited) return "You will join the organization that invited you: use the email address your invitation was sent to.";
  if (v.inviteOnly) return "Accounts are by invitation: use the email address your invitation was sent to.";
  return "You will get your own organization to try everything.";
}

export function signUpPage(v: SignUpView): string {
  const e = v.errors ?? {};
  const values = v.values ?? {};
  // Focus lands on the first field to fix, or on the first field of a fresh form.
  const focus = (["name", "email", "password", "confirmPassword"] as const).find((k) => e[k]) ?? "name";
  const body = html`<h1>Create your Toolbox account</h1>
<p class="lead">${signUpLead(v)}</p>
${formAlert(e.form)}
<form method="post" action="${v.action}">
${field({ id: "name", label: "Full name", type: "text", autocomplete: "name", value: values.name ?? "", error: e.name, autofocus: focus === "name", maxlength: 100 })}
${field({ id: "email", label: "Email", type: "email", autocomplete: "email", value: values.email ?? "", error: e.email, autofocus: focus === "email", maxlength: 254 })}
${field({
  id: "password",
  label: "Password",
  type: "password",
  autocomplete: "new-password",
  error: e.password,
  hint: `At least ${v.minPasswordLength} characters; not a common password, nor your email address.`,
  autofocus: focus === "password",
  minlength: v.minPasswordLength,
  maxlength: v.maxPasswordLength,
})}
${field({ id: "confirmPassword", label: "Confirm password", type: "password", autocomplete: "new-password", error: e.confirmPassword, autofocus: focus === "confirmPassword" })}
<button class="button" type="submit">Create account</button>
</form>
<p class="alt">Already have an account? <a href="${v.signInUrl}">Sign in</a></p>`;
  return layout({ title: "Create account", body, homeUrl: v.homeUrl });
}

export function errorPage(v: { homeUrl: string; title: string; message: string }): string {
  const body = html`<h1>${v.title}</h1>
<p class="lead" role="alert">${v.message}</p>
<a class="button" href="${v.homeUrl}">Back to Toolbox</a>`;
  return layout({ title: v.title, body, homeUrl: v.homeUrl });
}

/**
 * RP-initiated sign-out: oidc-provider hands us its form (with the anti-forgery token); a nonce'd
 * script submits it at once, so signing out takes no extra click. The button is for browsers
 * without script.
 */
export function signOutPage(v: { homeUrl: string; form: string; nonce: string }): string {
  // The provider signs out only when `logout` is posted; its form does not carry it.
  const form = raw(v.form.replace("</form>", '<input type="hidden" name="logout" value="yes"/></form>'));
  const body = html`<h1>Signing you out…</h1>
<p class="lead">One moment while Toolbox signs you out.</p>
${form}
<button class="button" type="submit" form="op.logoutForm">Sign out</button>`;
  const scripts = html`<script nonce="${v.nonce}">document.getElementById("op.logoutForm").submit();</script>`;
  return layout({ title: "Signing out", body, homeUrl: v.homeUrl, scripts });
}

export function signedOutPage(v: { homeUrl: string }): string {
  const body = html`<h1>You are signed out</h1>
<p class="lead">You have been signed out of Toolbox.</p>
<a class="button" href="${v.homeUrl}">Sign in again</a>`;
  return layout({ title: "Signed out", body, homeUrl: v.homeUrl });
}
