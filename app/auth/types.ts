/** The signed-in user record of docs/requirements.md#r-entities (what oidc-client-ts keeps, as plain data). */
export interface AuthUser {
  id_token?: string;
  session_state?: string | null;
  access_token: string;
  refresh_token?: string;
  token_type: string;
  scope?: string;
  profile: { sub: string; email?: string; name?: string; [claim: string]: unknown };
  /** Access token expiry, seconds since the epoch. */
  expires_at?: number;
}

/** docs/requirements.md#r-entities auth state. Only redirect_uri is persisted (local storage). */
export interface AuthState {
  user: AuthUser | null;
  isAuthenticated: boolean;
  access_token: string | null;
  isAnonymous: boolean;
  isRaw: boolean;
  /** Post-login return target: a same-origin path with its query and hash. */
  redirect_uri: string | null;
}

/** Shell mode for the current path: "raw" (no layout, no login), "anonymous" (signing in) or "authenticated". */
export type ShellMode = "raw" | "anonymous" | "authenticated";
