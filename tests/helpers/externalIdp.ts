import http from "node:http";
import type { AddressInfo } from "node:net";
import Provider, { type Configuration } from "oidc-provider";
import { generateKeyPair, exportJWK } from "jose";

export interface ExternalIdp {
  issuer: string;
  close(): Promise<void>;
}

/**
 * A separately run OpenID Connect provider, as a broker's Keycloak or Entra ID would be: its own
 * port, its own keys and its own login page (oidc-provider's development interactions: any login
 * name, any password, then a consent page). It knows one public PKCE client, Toolbox's, and issues
 * JWT access tokens for `audience` with the person's e-mail and name, as docs/configuration.md
 * asks of an external provider.
 */
export async function startExternalIdp(opts: { clientId: string; audience: string; appUrl: string }): Promise<ExternalIdp> {
  const { privateKey } = await generateKeyPair("RS256", { extractable: true });
  const jwk = { ...(await exportJWK(privateKey)), kid: "external-1", alg: "RS256", use: "sig" };
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const profile = (login: string) => ({ sub: login, email: `${login}@external.example`, name: `External ${login}` });
  const configuration: Configuration = {
    clients: [
      {
        client_id: opts.clientId,
        token_endpoint_auth_method: "none",
        grant_types: ["authorization_code", "refresh_token"],
        response_types: ["code"],
        redirect_uris: [`${opts.appUrl}/auth-callback`, `${opts.appUrl}/silent-renew`],
        post_logout_redirect_uris: [`${opts.appUrl}/`],
      },
    ],
    jwks: { keys: [jwk] },
    cookies: { keys: ["external-idp-test-cookie-key"] },
    features: {
      devInteractions: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => opts.audience,
        useGrantedResource: () => true,
        getResourceServerInfo: () => ({ scope: "toolbox.api", audience: opts.audience, accessTokenFormat: "jwt", jwt: { sign: { alg: "RS256" } } }),
      },
    },
    scopes: ["openid", "profile", "email", "offline_access"],
    claims: { openid: ["sub"], profile: ["name"], email: ["email"] },
    // devInteractions signs in with the login name typed as the account id.
    findAccount: (_ctx, sub) => ({ accountId: sub, claims: () => profile(sub) }),
    // The API mirrors the person from the access token alone.
    extraTokenClaims: (_ctx, token) => {
      if (!("accountId" in token) || typeof token.accountId !== "string") return undefined;
      const { email, name } = profile(token.accountId);
      return { email, name };
    },
    issueRefreshToken: () => true,
    pkce: { required: () => true },
  };
  const provider = new Provider(issuer, configuration);
  const handle = provider.callback();
  server.on("request", (req, res) => void handle(req, res));
  return {
    issuer,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
