import type { StateStore, UserManagerSettings } from "oidc-client-ts";
import type { PublicConfig } from "@core/publicConfig";
import {
  ACCESS_TOKEN_EXPIRING_NOTICE_SECONDS,
  CHECK_SESSION_INTERVAL_SECONDS,
  POPUP_HEIGHT,
  POPUP_WIDTH,
  RESPONSE_TYPE,
  SILENT_REQUEST_TIMEOUT_SECONDS,
  STALE_STATE_AGE_SECONDS,
} from "../constants";

/**
 * oidc-client-ts settings for docs/requirements.md#r-constants. Choices the spec leaves open (docs/security.md):
 * - automaticSilentRenew is off because we renew ourselves on the same "expiring" event, under a
 *   cross-tab lock (renew/): the provider rotates refresh tokens and revokes the grant when one is
 *   reused, so two tabs must never refresh with the same token. Renewal stays automatic for the user.
 * - monitorSession is off: the check-session iframe needs third-party cookies (blocked by default in
 *   browsers) and the embedded provider publishes none. The 2 s interval applies if it is enabled.
 * - loadUserInfo is off: the access token is bound to the API (resource indicator), not to userinfo.
 * - The clock skew (300 s) is applied by our ID token verifier; oidc-client-ts v3 checks no times.
 * - The popup closed-check interval (500 ms) is fixed inside oidc-client-ts, equal to the spec's.
 */
export function buildUserManagerSettings(config: PublicConfig, origin: string, stores: { userStore: StateStore; stateStore: StateStore }): UserManagerSettings {
  // RFC 8707: the embedded provider issues the API's JWT access token for this resource, on the
  // authorize request and on every token request (code exchange and refresh).
  const resource = config.resource ? { resource: config.resource } : undefined;
  return {
    authority: config.authority,
    client_id: config.clientId,
    scope: config.scope,
    response_type: RESPONSE_TYPE,
    redirect_uri: `${origin}/auth-callback`,
    silent_redirect_uri: `${origin}/silent-renew`,
    post_logout_redirect_uri: `${origin}/`,
    userStore: stores.userStore,
    stateStore: stores.stateStore,
    staleStateAgeInSeconds: STALE_STATE_AGE_SECONDS,
    accessTokenExpiringNotificationTimeInSeconds: ACCESS_TOKEN_EXPIRING_NOTICE_SECONDS,
    checkSessionIntervalInSeconds: CHECK_SESSION_INTERVAL_SECONDS,
    silentRequestTimeoutInSeconds: SILENT_REQUEST_TIMEOUT_SECONDS,
    popupWindowFeatures: { width: POPUP_WIDTH, height: POPUP_HEIGHT, location: false, toolbar: false },
    automaticSilentRenew: false,
    monitorSession: false,
    loadUserInfo: false,
    extraQueryParams: resource,
    extraTokenParams: resource,
  };
}
