import { decodeJwt } from "jose";
import type { PreviousIdClaims } from "../idToken/claims";
import { createSigningKeySource, type FetchJson, fetchJson } from "../idToken/signingKeys";
import { validateIdToken } from "../idToken/validate";

export interface VerifyRequest {
  nonce?: string;
  accessToken?: string;
  /** Subject expected back from a silent re-authentication. */
  currentSub?: string;
  /** ID token a refresh replaces. */
  previousIdToken?: string;
}

export type IdTokenVerifier = (idToken: string | undefined, request: VerifyRequest) => Promise<void>;

/** What the verifier needs from the discovery document oidc-client-ts already fetched. */
export interface ProviderMetadata {
  issuer(): Promise<string>;
  jwksUri(): Promise<string>;
}

/** Binds the pure docs/requirements.md#r-validation rules to this client and its provider's discovery document and keys. */
export function createIdTokenVerifier(clientId: string, metadata: ProviderMetadata, getJson: FetchJson = fetchJson): IdTokenVerifier {
  const keys = createSigningKeySource(() => metadata.jwksUri(), getJson);
  return async (idToken, request) => {
    await validateIdToken(
      idToken,
      {
        issuer: await metadata.issuer(),
        clientId,
        nonce: request.nonce,
        accessToken: request.accessToken,
        currentSub: request.currentSub,
        previous: request.previousIdToken ? previousClaims(request.previousIdToken) : undefined,
      },
      keys,
    );
  };
}

/** The token being replaced was verified when it was stored; only its claims are needed now. */
function previousClaims(idToken: string): PreviousIdClaims {
  const { sub, auth_time, azp } = decodeJwt(idToken) as PreviousIdClaims;
  return { sub, auth_time, azp };
}
