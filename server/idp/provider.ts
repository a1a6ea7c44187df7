import crypto from "node:crypto";
import type { FastifyBaseLogger } from "fastify";
import Provider, { errors, type ClientMetadata, type Configuration, type KoaContextWithOIDC } from "oidc-provider";
import { API_AUDIENCE, API_RESOURCE, API_SCOPE, type Config } from "../config.ts";
import { AMR_CLAIM, GRANT_ID_CLAIM } from "../http/auth/tokens.ts";
import type { Db } from "../db/client.ts";
import { findAccount, findAccountById } from "./people.ts";
import { createDrizzleAdapter } from "./adapter.ts";
import { apiClientTokenClaims, useHashedClientSecrets } from "./apiClients.ts";
import { loadFirstPartyGrant } from "./grants.ts";
import { OIDC_PREFIX } from "./mount.ts";
import { renderProviderError } from "./errors.ts";
import { idpPageCsp } from "./views/csp.ts";
import { signedOutPage, signOutPage } from "./views/pages.ts";
import { INVITATION_SIGN_IN_PARAM } from "../../core/schemas/members.ts";

const MINUTE = 60;
const DAY = 24 * 60 * MINUTE;

/** Lifetimes (seconds); docs/security.md explains them. */
export const TTL = {
  AccessToken: 10 * MINUTE,
  AuthorizationCode: 1 * MINUTE,
  IdToken: 60 * MINUTE,
  RefreshToken: 14 * DAY,
  Session: 14 * DAY,
  Grant: 14 * DAY,
  Interaction: 30 * MINUTE,
} as const;

/** Where the provider sends the browser for sign-in; the interaction routes live there. */
export const INTERACTION_PATH = `${OIDC_PREFIX}/interaction`;

export interface ProviderOptions {
  config: Config;
  db: Db;
  jwks: { keys: object[] };
  cookieKeys: string[];
  log: FastifyBaseLogger;
  /** Where revoked grants are recorded, so the API refuses their access tokens at once. */
  revocations?: { revoke(grantId: string): Promise<void> };
}

/** The Toolbox web app, the one client of the embedded provider (public: PKCE, no secret). */
export function toolboxWebClient(config: Config): ClientMetadata {
  const base = config.publicUrl;
  return {
    client_id: config.oidc.clientId,
    client_name: "Toolbox",
    application_type: "web",
    token_endpoint_auth_method: "none",
    grant_types: ["authorization_code", "refresh_token"],
    response_types: ["code"],
    // auth_time in every ID token, so the client can check it is unchanged after a refresh (docs/requirements.md#r-validation).
    require_auth_time: true,
    redirect_uris: [`${base}/auth-callback`, `${base}/auth-callback.html`, `${base}/silent-renew`, `${base}/silent-renew.html`],
    post_logout_redirect_uris: [`${base}/`, `${base}/logout-callback`],
  };
}

/** oidc-provider configured for Toolbox: code flow with PKCE (S256), JWT access tokens for the API. */
export function createProvider(opts: ProviderOptions): Provider {
  const { config, db, log } = opts;
  const publicOrigin = new URL(config.publicUrl).origin;
  const homeUrl = `${config.publicUrl}/`;
  const secureCookies = config.publicUrl.startsWith("https://");

  const configuration: Configuration = {
    adapter: createDrizzleAdapter(db, { grantRevoked: (grantId) => opts.revocations?.revoke(grantId) ?? Promise.resolve() }),
    clients: [toolboxWebClient(config)],
    findAccount: (_ctx, sub) => findAccount(db, sub),
    jwks: opts.jwks,
    cookies: {
      keys: opts.cookieKeys,
      // Secure only when the app is served over https, or the browser would drop them on http://localhost.
      // The session cookie travels only to /oidc, never with the app's page or API requests.
      long: { httpOnly: true, sameSite: "lax", secure: secureCookies, path: OIDC_PREFIX },
      short: { httpOnly: true, sameSite: "lax", secure: secureCookies },
    },
    scopes: ["openid", "offline_access", "profile", "email"],
    claims: {
      // `amr` (how the person signed in, RFC 8176) in every ID token; the provider takes it from the sign-in.
      openid: ["sub", "amr"],
      email: ["email", "email_verified"],
      profile: ["name"],
    },
    responseTypes: ["code"],
    // Put the granted profile/email claims in the ID token itself: the browser does not call
    // userinfo (its access token is for the API), and shows the person's name and email.
    conformIdTokenClaims: false,
    // The web app is public (none); API clients authenticate with their secret (decision 0050).
    clientAuthMethods: ["none", "client_secret_basic"],
    pkce: { required: () => true },
    // The client must name its redirect_uri; it is then compared exactly with the registered ones.
    allowOmittingSingleRegisteredRedirectUri: false,
    clientBasedCORS: (_ctx, origin) => origin === publicOrigin,
    // Kept on the interaction: the sign-up page's wording for someone following an invitation link.
    extraParams: [INVITATION_SIGN_IN_PARAM],
    features: {
      devInteractions: { enabled: false },
      // API clients of an organization (server/idp/apiClients.ts, docs/api.md).
      clientCredentials: { enabled: true },
      revocation: {
        enabled: true,
        // A client revokes only its own tokens (anyone else's are quietly left alone, per RFC 7009).
        allowedPolicy: (_ctx, client, token) => token.clientId === client.clientId,
      },
      userinfo: { enabled: true },
      rpInitiatedLogout: {
        enabled: true,
        logoutSource: (ctx, form) => {
          const nonce = crypto.randomBytes(16).toString("base64");
          ctx.set("Content-Security-Policy", idpPageCsp({ publicOrigin, scriptNonce: nonce }));
          ctx.type = "html";
          ctx.body = signOutPage({ homeUrl, form, nonce });
        },
        postLogoutSuccessSource: (ctx) => {
          ctx.set("Content-Security-Policy", idpPageCsp({ publicOrigin }));
          ctx.type = "html";
          ctx.body = signedOutPage({ homeUrl });
        },
      },
      resourceIndicators: {
        enabled: true,
        // A client that does not send `resource` (oidc-client-ts by default) still gets an API token.
        defaultResource: (_ctx, _client, oneOf) => {
          if (oneOf) return oneOf.includes(API_RESOURCE) ? API_RESOURCE : oneOf;
          return API_RESOURCE;
        },
        // The refresh grant keeps issuing the API's JWT, not an opaque userinfo token.
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx, resourceIndicator) => {
          if (resourceIndicator !== API_RESOURCE) throw new errors.InvalidTarget();
          return {
            scope: API_SCOPE,
            audience: API_AUDIENCE,
            accessTokenFormat: "jwt",
            accessTokenTTL: TTL.AccessToken,
            jwt: { sign: { alg: "RS256" } },
          };
        },
      },
    },
    // The API mirrors the person from the access token alone, so it carries email (and whether it is
    // verified: only a verified address may accept an invitation) and name; and
    // the grant it belongs to, so the API can refuse it once the grant is revoked (sign-out).
    // And how the person signed in (`amr`, RFC 8176: ["pwd"] or ["pwd","otp"]) and when (`auth_time`),
    // from the code or refresh token it is issued for, so the API can require two-factor and an
    // organization's session lifetime (docs/security.md, decisions 0049 and 0051).
    // An API client's token (client credentials) names the client's organization instead.
    extraTokenClaims: async (ctx, token) => {
      if (token.kind === "ClientCredentials") return token.clientId ? apiClientTokenClaims(db, token.clientId) : undefined;
      if (!("accountId" in token) || !token.accountId) return undefined;
      const account = await findAccountById(db, token.accountId);
      if (!account) return undefined;
      const grantId = "grantId" in token && typeof token.grantId === "string" ? token.grantId : undefined;
      const amr = amrOf(ctx);
      const entities = ctx?.oidc?.entities;
      const authTime = entities?.AuthorizationCode?.authTime ?? entities?.RefreshToken?.authTime;
      return {
        email: account.email,
        // Read fresh at every issue (refreshes too): an address confirmed since sign-in counts from the next token.
        email_verified: account.emailVerified,
        name: account.name,
        ...(grantId ? { [GRANT_ID_CLAIM]: grantId } : {}),
        ...(amr ? { [AMR_CLAIM]: amr } : {}),
        ...(typeof authTime === "number" ? { auth_time: authTime } : {}),
      };
    },
    loadExistingGrant: (ctx) => loadFirstPartyGrant(ctx, config.oidc.clientId),
    // Our web client gets refresh tokens without asking for offline_access (oidc-client-ts renews with them).
    issueRefreshToken: (_ctx, client) => client.grantTypeAllowed("refresh_token"),
    // Every use of a refresh token returns a new one; the old one is consumed, and reusing it revokes the grant.
    rotateRefreshToken: () => true,
    ttl: {
      AccessToken: TTL.AccessToken,
      AuthorizationCode: TTL.AuthorizationCode,
      IdToken: TTL.IdToken,
      // A rotated token inherits what is left of its predecessor's lifetime: rotation never extends
      // a sign-in past 14 days.
      RefreshToken: (ctx) => ctx?.oidc?.entities.RotatedRefreshToken?.remainingTTL ?? TTL.RefreshToken,
      Session: TTL.Session,
      Grant: TTL.Grant,
      Interaction: TTL.Interaction,
    },
    interactions: {
      url: (_ctx, interaction) => `${INTERACTION_PATH}/${interaction.uid}`,
    },
    renderError: (ctx, out, error) => renderProviderError(ctx, out, error, { publicOrigin, homeUrl, log }),
  };

  const provider = new Provider(config.oidc.authority, configuration);
  useHashedClientSecrets(provider);
  // Behind a TLS-terminating proxy, trust its X-Forwarded-* headers (TRUST_PROXY=true).
  provider.proxy = config.trustProxy !== false;
  provider.on("server_error", (_ctx: KoaContextWithOIDC, err: Error) => log.error({ err }, "identity provider error"));
  return provider;
}

/** The `amr` of the sign-in behind the token being issued: kept on the authorization code and on every refresh token. */
function amrOf(ctx: KoaContextWithOIDC | undefined): string[] | undefined {
  const entities = ctx?.oidc?.entities;
  const amr = entities?.AuthorizationCode?.amr ?? entities?.RefreshToken?.amr ?? entities?.RotatedRefreshToken?.amr;
  return Array.isArray(amr) && amr.every((v) => typeof v === "string") ? amr : undefined;
}
