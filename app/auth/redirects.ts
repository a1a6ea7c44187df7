import type { User } from "oidc-client-ts";
import { INVITATION_LINK_HASH, INVITATION_SIGN_IN_PARAM } from "@core/invitationLink";
import { SILENT_REQUEST_TIMEOUT_SECONDS } from "./constants";
import { userManager } from "./connect";
import type { VerifyingUserManager } from "./manager";
import { toastsOnScreen } from "~/ui/toast";
import { showAuthFailure } from "./notify";
import { currentPath, returnTargetFor } from "./returnPath";
import { setAuthUser, useAuthStore } from "./store";

/** How long a sign-in redirect waits for its warning toast to be on screen (it normally takes a frame or two). */
const TOAST_WAIT_MS = 3000;

/** A redirect to the provider (sign-in or sign-out) is under way: start no other. */
let leaving = false;
let leavingTimer: ReturnType<typeof setTimeout> | undefined;

export function isLeaving(): boolean {
  return leaving;
}

/**
 * Mark a redirect as started. If the page is still here 10 s later, the navigation was blocked
 * (e.g. a "leave this page?" prompt was declined): allow a new attempt rather than stay stuck.
 */
function startLeaving(): boolean {
  if (leaving) return false;
  leaving = true;
  clearTimeout(leavingTimer);
  leavingTimer = setTimeout(stopLeaving, SILENT_REQUEST_TIMEOUT_SECONDS * 1000);
  return true;
}

function stopLeaving(): void {
  leaving = false;
  clearTimeout(leavingTimer);
}

/** Keep `fullPath` as the post-login return target (docs/requirements.md#r-routes). */
export function rememberReturnPath(fullPath: string): void {
  const target = returnTargetFor(fullPath);
  if (target) useAuthStore.setState({ redirect_uri: target });
}

/**
 * Send the browser to the provider's sign-in. Resolves once the redirect is requested — the page is
 * then unloading — rather than never; failures are shown as the auth failure toast.
 */
export async function startLoginRedirect(opts: { fresh?: boolean } = {}): Promise<void> {
  if (!startLeaving()) return;
  try {
    const um = await userManager();
    // The warning raised just before (docs/requirements.md#r-errors "Authentication expired") must reach the screen before
    // the page leaves; the toaster loads when first needed, so wait for it, briefly.
    await toastsOnScreen(TOAST_WAIT_MS);
    // signinRedirect settles only if the page comes back (bfcache) or the request could not be made.
    // Following an invitation link: the provider's sign-up page then says they join the inviting organization.
    const invited = new RegExp(`#${INVITATION_LINK_HASH}=`).test(useAuthStore.getState().redirect_uri ?? "");
    const args = {
      ...(opts.fresh ? { prompt: "login" } : {}),
      ...(invited ? { extraQueryParams: { ...um.settings.extraQueryParams, [INVITATION_SIGN_IN_PARAM]: "1" } } : {}),
    };
    um.signinRedirect(Object.keys(args).length ? args : undefined).then(stopLeaving, (error: unknown) => {
      stopLeaving();
      showAuthFailure(error);
    });
  } catch (error) {
    stopLeaving();
    showAuthFailure(error);
  }
}

/**
 * Sign in again and come back here. `fresh`: the provider asks for the password (and code) even
 * though its session is still open (`prompt=login`) — after setting up two-factor, a sign-in
 * reusing the old session would still say it was made without a code.
 */
export async function relogin(opts: { fresh?: boolean } = {}): Promise<void> {
  rememberReturnPath(currentPath());
  await startLoginRedirect(opts);
}

export async function logout(): Promise<void> {
  if (!startLeaving()) return;
  try {
    const um = await userManager();
    const user = await um.getUser();
    await revokeRefreshToken(um, user);
    // signoutRedirect removes the stored user first (every tab sees it), then leaves for the provider.
    um.signoutRedirect({ id_token_hint: user?.id_token, post_logout_redirect_uri: `${window.location.origin}/` }).then(stopLeaving, (error: unknown) => {
      stopLeaving();
      showAuthFailure(error);
    });
  } catch (error) {
    stopLeaving();
    setAuthUser(null);
    showAuthFailure(error);
  }
}

/**
 * Best effort: a refresh token revoked at sign-out cannot be replayed from a copied storage, even
 * if the provider keeps the grant. Sign-out goes on when the provider refuses or is unreachable.
 */
async function revokeRefreshToken(um: VerifyingUserManager, user: User | null): Promise<void> {
  if (!user?.refresh_token) return;
  try {
    await um.revokeTokens(["refresh_token"]);
  } catch (error) {
    console.warn("[auth] refresh token revocation failed", error);
  }
}
