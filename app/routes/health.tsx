import { useEffect } from "react";
import { useRevalidator } from "react-router";
import type { Route } from "./+types/health";
import { fetchHealth, HealthPage, HEALTH_URL } from "~/features/health";

export const meta = () => [{ title: "Health · Toolbox" }];

// The server asks its own /api/health, so the page is complete without JavaScript.
export function loader({ request }: Route.LoaderArgs) {
  return fetchHealth(new URL(HEALTH_URL, request.url).href);
}

// In the browser, rechecks go straight to the API instead of through the page's loader.
export function clientLoader() {
  return fetchHealth();
}

/** How often an open /health page rechecks by itself. */
const RECHECK_MS = 30_000;

export default function HealthRoute({ loaderData }: Route.ComponentProps) {
  const { revalidate } = useRevalidator();
  useEffect(() => {
    const timer = setInterval(() => void revalidate(), RECHECK_MS);
    return () => clearInterval(timer);
  }, [revalidate]);
  return <HealthPage report={loaderData} />;
}
