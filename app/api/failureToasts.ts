import { AUTH_TOASTS } from "~/auth/messages";
import { toast } from "~/ui/toast";

/** docs/requirements.md#r-errors texts, word for word. */
/** The same title the sign-in guard uses (app/auth/messages.ts). */
export const AUTH_EXPIRED_TITLE = AUTH_TOASTS.expiredTitle;
export const AUTH_EXPIRED_FALLBACK = "Authenticating back...";
export const ERROR_TITLE = AUTH_TOASTS.failureTitle;
export const UNAVAILABLE_FALLBACK = "Seems that remote service temporary unavailable, please try again later or wait until it get online automatically";

/** One id, so several calls failing with 401 at once show one toast, not a pile. */
const AUTH_EXPIRED_TOAST_ID = "api-authentication-expired";

export function toastAuthenticationExpired(text: string) {
  toast({ id: AUTH_EXPIRED_TOAST_ID, title: AUTH_EXPIRED_TITLE, description: text || AUTH_EXPIRED_FALLBACK, color: "warning", icon: "warning" });
}

/** The same message twice (a retried query, parallel calls to a dead server) shows once. */
export function toastFailure(text: string) {
  const description = text || UNAVAILABLE_FALLBACK;
  toast({ id: `api-error:${description}`, title: ERROR_TITLE, description, color: "error", icon: "warning" });
}

/** Where a member sets up two-factor sign-in (the enrolment section of /settings/security). */
export const TWO_FACTOR_SETUP_PATH = "/settings/security";

/**
 * The organization requires two-factor sign-in and this sign-in had none (403, code
 * `two_factor_required`): one toast, whatever the caller, leading to the enrolment section.
 */
export function toastTwoFactorRequired(text: string) {
  toast({
    id: "api-two-factor-required",
    title: "Two-factor sign-in required",
    description: text || "This organization requires two-factor sign-in. Set it up, then sign in again.",
    color: "warning",
    icon: "warning",
    ...(window.location.pathname === TWO_FACTOR_SETUP_PATH
      ? {}
      : { action: { label: "Set up two-factor", onClick: () => window.location.assign(TWO_FACTOR_SETUP_PATH) } }),
  });
}
