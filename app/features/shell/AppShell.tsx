import { Outlet, useLocation } from "react-router";
import { useAuthGuard, type ShellMode } from "~/auth";
import { usePreflight, useProfileStore } from "~/profile";
import { FullScreenPlaceholder } from "~/ui/FullScreenPlaceholder";
import { LoadingBar } from "~/ui/loadingBar";
import { AppLayout } from "./AppLayout";
import { useHydrated } from "~/ui/useHydrated";

/**
 * The three shell modes of docs/requirements.md#r-routes: raw pages bare; while signing in a full-screen 'Signing in...';
 * once signed in 'Loading...' until preflight is done, then the layout with the page.
 */
export function AppShell() {
  const { pathname } = useLocation();
  const mode = useShellMode(pathname);
  const ready = usePreflight(mode === "authenticated");

  if (mode === "raw") return <Outlet />;
  if (mode === "anonymous") {
    return (
      <>
        <LoadingBar active />
        <FullScreenPlaceholder text="Signing in..." />
      </>
    );
  }
  if (!ready) return <PreflightPlaceholder />;
  return (
    <>
      <LoadingBar />
      <AppLayout>
        <Outlet />
      </AppLayout>
    </>
  );
}

/** The guard's answer, except that hydration shows what the server could know (never signed in). */
function useShellMode(pathname: string): ShellMode {
  const guarded = useAuthGuard(pathname);
  const hydrated = useHydrated();
  return guarded === "authenticated" && !hydrated ? "anonymous" : guarded;
}

function PreflightPlaceholder() {
  const failing = useProfileStore((s) => s.preflightError !== null);
  return (
    <>
      <LoadingBar active />
      <FullScreenPlaceholder text="Loading..." hint={failing ? "Toolbox's service does not answer yet. Retrying every second…" : undefined} />
    </>
  );
}
