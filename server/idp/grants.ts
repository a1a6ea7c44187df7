import type { Grant, Interaction, KoaContextWithOIDC, Provider } from "oidc-provider";

/**
 * Toolbox's own web client is first-party: the person never sees a consent screen. Whatever it
 * asks for (OIDC scopes, claims, the API's scope) is granted, on the existing grant of the
 * session or a new one. Used as `loadExistingGrant`, so the consent prompt does not even start.
 */
export async function loadFirstPartyGrant(ctx: KoaContextWithOIDC, firstPartyClientId: string): Promise<Grant | undefined> {
  const { oidc } = ctx;
  const client = oidc.client!;
  const grantId = oidc.result?.consent?.grantId ?? oidc.session!.grantIdFor(client.clientId);
  let grant = grantId ? await oidc.provider.Grant.find(grantId) : undefined;
  if (client.clientId !== firstPartyClientId) return grant;

  grant ??= new oidc.provider.Grant({ clientId: client.clientId, accountId: oidc.session!.accountId });
  const requested = oidc.requestParamScopes;
  grant.addOIDCScope([...oidc.requestParamOIDCScopes]);
  grant.addOIDCClaims([...oidc.requestParamClaims]);
  for (const [indicator, server] of Object.entries(oidc.resourceServers ?? {})) {
    const scopes = server.scope.split(" ").filter((s) => requested.has(s));
    if (scopes.length) grant.addResourceScope(indicator, scopes);
  }
  await grant.save();
  return grant;
}

/**
 * Fallback when the provider still asks for consent (it should not for our client): grant what
 * the prompt lists as missing, and return the interaction result that finishes it.
 */
export async function grantMissingConsent(provider: Provider, interaction: Interaction) {
  const { prompt, params, session, grantId } = interaction;
  const grant =
    (grantId ? await provider.Grant.find(grantId) : undefined) ?? new provider.Grant({ accountId: session!.accountId, clientId: params.client_id as string });
  const details = prompt.details as {
    missingOIDCScope?: string[];
    missingOIDCClaims?: string[];
    missingResourceScopes?: Record<string, string[]>;
  };
  if (details.missingOIDCScope) grant.addOIDCScope(details.missingOIDCScope);
  if (details.missingOIDCClaims) grant.addOIDCClaims(details.missingOIDCClaims);
  for (const [indicator, scopes] of Object.entries(details.missingResourceScopes ?? {})) grant.addResourceScope(indicator, scopes);
  return { consent: { grantId: await grant.save() } };
}
