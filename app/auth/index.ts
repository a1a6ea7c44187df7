/**
 * Public face of the browser sign-in layer. The UI shell and the API client import only from here.
 * (Initial stub implementations; the sign-in work replaces them keeping these signatures.)
 */
import { create } from "zustand";

export interface AuthUser {
  id_token?: string;
  session_state?: string | null;
  access_token: string;
  refresh_token?: string;
  token_type: string;
  scope?: string;
  profile: { sub: string; email?: string; name?: string; [claim: string]: unknown };
  expires_at?: number;
}

/** SPEC §3 auth state. Only redirect_uri is persisted (local storage). */
export interface AuthState {
  user: AuthUser | null;
  isAuthenticated: boolean;
  access_token: string | null;
  isAnonymous: boolean;
  isRaw: boolean;
  redirect_uri: string | null;
}

export const useAuthStore = create<AuthState>()(() => ({
  user: null,
  isAuthenticated: false,
  access_token: null,
  isAnonymous: true,
  isRaw: false,
  redirect_uri: null,
}));

/** Shell mode for the current path: "raw" (no layout, no login), "anonymous" (signing in) or "authenticated". */
export type ShellMode = "raw" | "anonymous" | "authenticated";

/** Runs the SPEC §2 route guard for `pathname` (browser only; during SSR it only classifies the path). */
export function useAuthGuard(pathname: string): ShellMode {
  return isRawPath(pathname) ? "raw" : "anonymous";
}

export function isRawPath(pathname: string): boolean {
  return /^\/(auth-callback|silent-renew)(\.html)?\/?$|^\/health\/?$/.test(pathname);
}

/** The signed-in user, refreshed first when its access token is about to expire; null when signed out. */
export async function getFreshUser(): Promise<AuthUser | null> {
  return useAuthStore.getState().user;
}

/** Keep the current path as the return target and sign in again at the provider. */
export async function relogin(): Promise<void> {}

/** Sign out at the provider, then come back to the site root. */
export async function logout(): Promise<void> {}
