import { base64url } from "jose";
import type { INavigator } from "oidc-client-ts";
import { ISSUER, type TestKey } from "./idp";

export const ORIGIN = window.location.origin;

export const config = {
  authority: ISSUER,
  clientId: "toolbox-web",
  scope: "openid profile email toolbox.api",
  audience: "toolbox.api",
  resource: "urn:toolbox:api",
  buildId: "test",
};

const json = (body: unknown, status = 200) => new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } });

/**
 * The identity provider at the edge: discovery, keys, token and revocation endpoints answered over a
 * stubbed fetch. Each token request is recorded and answered by `onToken`.
 */
export function fakeProvider(keys: () => TestKey[]) {
  const provider = {
    tokenRequests: [] as URLSearchParams[],
    onToken: async (_form: URLSearchParams): Promise<unknown> => ({ error: "invalid_request" }),
    fetch: async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
      const url = String(input instanceof Request ? input.url : input);
      switch (url) {
        case `${ISSUER}/.well-known/openid-configuration`:
          return json({
            issuer: ISSUER,
            authorization_endpoint: `${ISSUER}/auth`,
            token_endpoint: `${ISSUER}/token`,
            jwks_uri: `${ISSUER}/jwks`,
            end_session_endpoint: `${ISSUER}/session/end`,
            revocation_endpoint: `${ISSUER}/token/revocation`,
          });
        case `${ISSUER}/jwks`:
          return json({ keys: keys().map((k) => k.jwk) });
        case `${ISSUER}/token`: {
          const form = new URLSearchParams(await new Response(init?.body).text());
          provider.tokenRequests.push(form);
          const answer = (await provider.onToken(form)) as { error?: string };
          return json(answer, answer.error ? 400 : 200);
        }
        case `${ISSUER}/token/revocation`:
          return new Response(null, { status: 200 });
        default:
          return json({ error: "not_found" }, 404);
      }
    },
  };
  return provider;
}

/** Captures where the browser would be sent instead of navigating (jsdom cannot). */
export function capturingNavigator(): INavigator & { urls: string[] } {
  const navigator = {
    urls: [] as string[],
    prepare: async () => ({
      navigate: async ({ url }: { url: string }) => {
        navigator.urls.push(url);
        return { url };
      },
      close: () => undefined,
    }),
    callback: async () => undefined,
  };
  return navigator;
}

export async function s256(verifier: string): Promise<string> {
  return base64url.encode(new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier))));
}

export const nowSeconds = () => Math.floor(Date.now() / 1000);
