/** Pages of e-mail confirmation, password reset and the development outbox (docs/security.md). */
import { html } from "./html.ts";
import { layout } from "./layout.ts";
import { field, formAlert, type FormErrors } from "./pages.ts";

export interface EmailCodeView {
  homeUrl: string;
  email: string;
  action: string;
  resendUrl: string;
  skipUrl: string;
  /** Set in development without SMTP_URL: where the message can be read. */
  devOutboxUrl?: string;
  /** "A new code is on its way." */
  notice?: string;
  errors?: FormErrors<"code">;
}

/** After sign-up or sign-in, when an invitation waits for an unconfirmed address: the code sent to it. */
export function emailCodePage(v: EmailCodeView): string {
  const e = v.errors ?? {};
  const body = html`<h1>Confirm your email address</h1>
<p class="lead">We sent a 6-digit code to <strong>${v.email}</strong>. An invitation waits for this address: it can be accepted once you confirm that the address is yours.</p>
${v.notice ? html`<div class="notice" role="status">${v.notice}</div>` : ""}
${
  v.devOutboxUrl
    ? html`<div class="notice">No e-mail server is set up (development): the message is in the <a href="${v.devOutboxUrl}" target="_blank" rel="noopener">development outbox</a>.</div>`
    : ""
}
${formAlert(e.form)}
<form method="post" action="${v.action}">
${field({ id: "code", label: "Confirmation code", type: "text", autocomplete: "one-time-code", error: e.code, autofocus: true, maxlength: 32 })}
<button class="button" type="submit">Confirm</button>
</form>
<form method="post" action="${v.resendUrl}"><button class="button secondary" type="submit">Send a new code</button></form>
<form method="post" action="${v.skipUrl}"><button class="button secondary" type="submit">Not now</button></form>
<p class="alt">Without a confirmed address you can use Toolbox, but not accept an invitation.</p>`;
  return layout({ title: "Confirm your email address", body, homeUrl: v.homeUrl });
}

export function forgotPasswordPage(v: { homeUrl: string; action: string; email?: string; errors?: FormErrors<"email"> }): string {
  const e = v.errors ?? {};
  const body = html`<h1>Reset your password</h1>
<p class="lead">Enter the email address of your Toolbox account. We will send you a link to choose a new password.</p>
${formAlert(e.form)}
<form method="post" action="${v.action}">
${field({ id: "email", label: "Email", type: "email", autocomplete: "username", value: v.email ?? "", error: e.email, autofocus: true, maxlength: 254 })}
<button class="button" type="submit">Send the link</button>
</form>
<p class="alt"><a href="${v.homeUrl}">Back to sign in</a></p>`;
  return layout({ title: "Reset your password", body, homeUrl: v.homeUrl });
}

export function resetSentPage(v: { homeUrl: string; email: string; validMinutes: number; devOutboxUrl?: string }): string {
  const body = html`<h1>Check your email</h1>
<p class="lead" role="status">If a Toolbox account uses <strong>${v.email}</strong>, we sent it a link to choose a new password. The link works once, for ${v.validMinutes} minutes.</p>
${
  v.devOutboxUrl
    ? html`<div class="notice">No e-mail server is set up (development): the message is in the <a href="${v.devOutboxUrl}">development outbox</a>.</div>`
    : ""
}
<a class="button" href="${v.homeUrl}">Back to sign in</a>`;
  return layout({ title: "Check your email", body, homeUrl: v.homeUrl });
}

export interface ResetPasswordView {
  homeUrl: string;
  action: string;
  token: string;
  email: string;
  minPasswordLength: number;
  maxPasswordLength: number;
  errors?: FormErrors<"password" | "confirmPassword">;
}

export function resetPasswordPage(v: ResetPasswordView): string {
  const e = v.errors ?? {};
  const focus = e.confirmPassword && !e.password ? "confirmPassword" : "password";
  const body = html`<h1>Choose a new password</h1>
<p class="lead">For <strong>${v.email}</strong>. Every session signed in with the old password ends.</p>
${formAlert(e.form)}
<form method="post" action="${v.action}">
<input type="hidden" name="token" value="${v.token}">
<input type="hidden" name="username" autocomplete="username" value="${v.email}">
${field({
  id: "password",
  label: "New password",
  type: "password",
  autocomplete: "new-password",
  error: e.password,
  hint: `At least ${v.minPasswordLength} characters; not a common password, nor your email address.`,
  autofocus: focus === "password",
  minlength: v.minPasswordLength,
  maxlength: v.maxPasswordLength,
})}
${field({ id: "confirmPassword", label: "Confirm new password", type: "password", autocomplete: "new-password", error: e.confirmPassword, autofocus: focus === "confirmPassword" })}
<button class="button" type="submit">Save the new password</button>
</form>`;
  return layout({ title: "Choose a new password", body, homeUrl: v.homeUrl });
}

export function passwordResetDonePage(v: { homeUrl: string }): string {
  const body = html`<h1>Your password is changed</h1>
<p class="lead" role="status">Every session signed in with the old password has ended. Sign in with the new one.</p>
<a class="button" href="${v.homeUrl}">Sign in</a>`;
  return layout({ title: "Password changed", body, homeUrl: v.homeUrl });
}

/** Development only (no SMTP_URL, NODE_ENV not production): what the provider would have mailed. */
export function devOutboxPage(v: { homeUrl: string; messages: readonly { to: string | string[]; subject: string; text: string; sentAt: Date }[] }): string {
  const items = [...v.messages].reverse().map(
    (m) => html`<article class="notice" aria-label="${m.subject}">
<div><strong>${m.subject}</strong></div>
<div>To: ${[m.to].flat().join(", ")} · ${m.sentAt.toISOString()}</div>
<pre>${m.text}</pre>
</article>`,
  );
  const body = html`<h1>Development outbox</h1>
<p class="lead">No e-mail server is set up (SMTP_URL), so the sign-in service's messages are kept here, newest first. This page does not exist in production.</p>
${items.length ? items : html`<p>No messages yet.</p>`}`;
  return layout({ title: "Development outbox", body, homeUrl: v.homeUrl });
}
