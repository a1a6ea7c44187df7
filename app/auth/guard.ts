import { useEffect } from "react";
import { useLocation } from "react-router";
import { isRawPath } from "./rawPaths";
import { currentPath } from "./returnPath";
import { ensureSignedIn } from "./session";
import { useAuthStore } from "./store";
import type { ShellMode } from "./types";
import { configureFrom, useAuthConfig } from "./useAuthConfig";

/**
 * docs/requirements.md#r-routes route guard, called by the root shell with the current pathname.
 *
 * Raw paths are let through untouched. Any other path is stored as the post-login target, the user is
 * loaded (renewed if expired), and a signed-out visitor is sent to the provider.
 *
 * Rendering: the server has no user, so it renders "anonymous" (the 'Signing in...' placeholder), and
 * so does the first client render — zustand reads the store's initial state while hydrating — so the
 * markup matches. The mode switches to "authenticated" after the effect has loaded the user.
 */
export function useAuthGuard(pathname: string): ShellMode {
  const raw = isRawPath(pathname);
  const location = useLocation();
  // The full path (query and hash too) is the return target; the router knows it for this pathname.
  const fullPath = location.pathname === pathname ? pathname + location.search + location.hash : pathname;
  const config = useAuthConfig();
  const isAuthenticated = useAuthStore((s) => s.isAuthenticated);

  useEffect(() => {
    useAuthStore.setState({ isRaw: raw });
    if (raw) return;
    configureFrom(config);
    void ensureSignedIn(fullPath);
  }, [raw, fullPath, config]);

  // Signed out elsewhere (another tab signed out, the stored user was removed): sign in again.
  useEffect(() => {
    if (raw) return;
    return useAuthStore.subscribe((state, previous) => {
      if (previous.isAuthenticated && !state.isAuthenticated) void ensureSignedIn(currentPath());
    });
  }, [raw]);

  if (raw) return "raw";
  return isAuthenticated ? "authenticated" : "anonymous";
}
