import {
  User,
  UserManager,
  type CreateSigninRequestArgs,
  type INavigator,
  type IWindow,
  type NavigateResponse,
  type UserManagerSettings,
  type UseRefreshTokenArgs,
} from "oidc-client-ts";
import { base64url } from "jose";
import { OIDC_STORAGE_PREFIX } from "../constants";
import { AUTH_MESSAGES as M } from "../messages";
import type { IdTokenVerifier } from "./idTokenVerifier";

/**
 * oidc-client-ts's UserManager, plus what it leaves out: it does not verify ID token signatures or
 * times, and in the code flow it sends no nonce. Tokens are verified between the token response and
 * `storeUser`, so a token that fails docs/requirements.md#r-validation is never stored, never announced to other tabs, never used.
 *
 * The overridden methods are the protected extension points of oidc-client-ts 3.x; if an upgrade
 * changes them, tests/unit/auth/userManager.test.ts fails.
 */
export class VerifyingUserManager extends UserManager {
  constructor(
    settings: UserManagerSettings,
    private readonly verify: IdTokenVerifier,
    redirectNavigator?: INavigator,
  ) {
    super(settings, redirectNavigator);
  }

  /** Local storage key of the user record, for the cross-tab `storage` event. */
  get storageKey(): string {
    return OIDC_STORAGE_PREFIX + this._userStoreKey;
  }

  /** The user record in storage as it is now, without re-arming the expiry timers. */
  readStoredUser(): Promise<User | null> {
    return this._loadUser();
  }

  // Every sign-in request (redirect, popup, silent iframe) carries a fresh nonce the ID token must echo.
  protected override _signinStart(args: CreateSigninRequestArgs, handle: IWindow): Promise<NavigateResponse> {
    return super._signinStart({ ...args, nonce: args.nonce ?? createNonce() }, handle);
  }

  protected override async _signinEnd(url: string, verifySub?: string): Promise<User> {
    // processSigninResponse consumes the stored sign-in state, and with it the nonce: read it first.
    const { state } = await this._client.readSigninResponseState(url, false);
    const response = await this._client.processSigninResponse(url, {});
    if (!response.id_token) throw new Error(M.noIdToken);
    if (!response.access_token) throw new Error(M.noAccessToken);
    await this.verify(response.id_token, { nonce: state.nonce, accessToken: response.access_token, currentSub: verifySub });
    return this._buildUser(response, verifySub);
  }

  protected override async _useRefreshToken(args: UseRefreshTokenArgs): Promise<User> {
    const response = await this._client.useRefreshToken({
      timeoutInSeconds: this.settings.silentRequestTimeoutInSeconds,
      ...args,
      // signinSilent forwards only its own arguments; the resource indicator must go on refreshes too.
      extraTokenParams: { ...this.settings.extraTokenParams, ...args.extraTokenParams },
    });
    if (!response.access_token) throw new Error(M.noAccessToken);
    // Without a new ID token the response keeps the stored one, which was verified when it was stored.
    if (response.id_token && response.id_token !== args.state.id_token) {
      await this.verify(response.id_token, { accessToken: response.access_token, previousIdToken: args.state.id_token });
    }
    const user = new User({ ...args.state, ...response });
    await this.storeUser(user);
    await this._events.load(user);
    return user;
  }
}

function createNonce(): string {
  return base64url.encode(crypto.getRandomValues(new Uint8Array(32)));
}
