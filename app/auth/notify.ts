import { toast } from "~/ui/toast";
import { AUTH_TOASTS } from "./messages";
import { authErrorText } from "./errors";

/**
 * docs/requirements.md#r-errors auth failure toast, shared by every sign-in failure. A fixed id makes a burst of failures
 * (several API calls, several tabs' timers) replace one toast instead of filling the queue.
 */
export function showAuthFailure(error: unknown): void {
  console.error("[auth]", error);
  toast({ id: "auth-failure", title: AUTH_TOASTS.failureTitle, description: authErrorText(error), color: "error", icon: "warning" });
}

/** docs/requirements.md#r-routes: shown by the route guard just before it sends a signed-out visitor to the provider. */
export function showAuthExpired(): void {
  toast({
    id: "auth-expired",
    title: AUTH_TOASTS.expiredTitle,
    description: AUTH_TOASTS.expiredDescription,
    color: "warning",
    icon: "warning",
  });
}
