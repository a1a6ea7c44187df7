/** What the browser is told about the deployment; the server fills it from its validated config. */
export interface PublicConfig {
  /** OpenID Connect issuer the browser signs in with. */
  authority: string;
  clientId: string;
  /** Space-separated scopes requested at sign-in (docs/requirements.md#r-access). */
  scope: string;
  /** Audience of the API's access tokens. */
  audience: string;
  /** RFC 8707 resource indicator, sent only to the embedded provider. */
  resource?: string;
  /** Id of the running build, compared with builds/latest.json. */
  buildId: string;
}
