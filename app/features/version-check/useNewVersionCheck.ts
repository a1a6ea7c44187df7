import { useEffect } from "react";
import { toast } from "~/ui/toast";

/** How often an open tab asks whether a newer build was deployed (also on every window focus). */
export const VERSION_CHECK_INTERVAL_MS = 5 * 60 * 1000;
export const NEW_VERSION_TITLE = "A new version of Toolbox is available";

/** The build manifest of docs/requirements.md#r-calls: GET builds/latest.json with a timestamp query (defeats caches). */
export async function fetchLatestBuildId(): Promise<string | null> {
  const response = await fetch(`/builds/latest.json?t=${Date.now()}`, { cache: "no-store" });
  if (!response.ok) return null;
  const body = (await response.json()) as { id?: unknown };
  return typeof body.id === "string" ? body.id : null;
}

/**
 * docs/requirements.md#r-states new-version check. When the deployed build differs from the one running, offer a reload
 * once; the toast stays until dismissed. Development builds ('dev') are never compared.
 */
export function useNewVersionCheck(buildId: string | undefined) {
  useEffect(() => {
    if (!buildId || buildId === "dev") return;
    let notified = false;
    // Not awaited by the timer or the focus event: a failed check is simply tried again at the next one.
    const check = () => {
      if (notified) return;
      void fetchLatestBuildId()
        .catch(() => null)
        .then((latest) => {
          if (!latest || latest === buildId || notified) return;
          notified = true;
          toast({
            id: "new-version",
            title: NEW_VERSION_TITLE,
            description: "Reload to use it; unsaved changes on this page would be lost.",
            color: "info",
            icon: "refresh",
            duration: Number.POSITIVE_INFINITY,
            action: { label: "Reload", onClick: () => window.location.reload() },
          });
        });
    };
    const timer = setInterval(check, VERSION_CHECK_INTERVAL_MS);
    window.addEventListener("focus", check);
    return () => {
      clearInterval(timer);
      window.removeEventListener("focus", check);
    };
  }, [buildId]);
}
