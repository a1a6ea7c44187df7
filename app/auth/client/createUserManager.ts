import { WebStorageStateStore, type INavigator } from "oidc-client-ts";
import type { PublicConfig } from "@core/publicConfig";
import { OIDC_STORAGE_PREFIX } from "../constants";
import { createIdTokenVerifier } from "./idTokenVerifier";
import { buildUserManagerSettings } from "./settings";
import { VerifyingUserManager } from "./VerifyingUserManager";

export { VerifyingUserManager };

/**
 * Entry point of the browser-only chunk (app/auth/manager.ts imports it dynamically, so neither
 * oidc-client-ts nor the verifier is part of the server render).
 * The user record goes to local storage (docs/requirements.md#r-constants), shared by every tab of the origin.
 */
export function createUserManager(config: PublicConfig, origin: string, options: { redirectNavigator?: INavigator } = {}): VerifyingUserManager {
  const storage = new WebStorageStateStore({ store: window.localStorage, prefix: OIDC_STORAGE_PREFIX });
  const settings = buildUserManagerSettings(config, origin, { userStore: storage, stateStore: storage });
  // Late-bound: the verifier reads the discovery document through the manager it verifies for
  // (created just below; the verifier only calls these once a sign-in answer arrives).
  const verifier = createIdTokenVerifier(config.clientId, {
    issuer: () => manager.metadataService.getIssuer(),
    jwksUri: () => manager.metadataService.getKeysEndpoint(false),
  });
  const manager = new VerifyingUserManager(settings, verifier, options.redirectNavigator);
  return manager;
}
