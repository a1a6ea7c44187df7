/** What /api/health answers (server/modules/health/routes.ts), and what /health shows. */
export interface DependencyHealth {
  state: "up" | "down";
  detail?: string;
}

export type HealthReport =
  | {
      reachable: true;
      status: "ok" | "degraded";
      version: string;
      dependencies: Record<string, DependencyHealth>;
      checkedAt: string;
    }
  | { reachable: false; error: string; checkedAt: string };

export const HEALTH_TIMEOUT_MS = 5000;

/**
 * Asks /api/health. A degraded service answers 503 with the same body, so the body is read
 * whatever the status; only no answer at all (or not our JSON) counts as unreachable.
 */
export async function fetchHealth(url: string): Promise<HealthReport> {
  const checkedAt = new Date().toISOString();
  try {
    const response = await fetch(url, { headers: { Accept: "application/json" }, signal: AbortSignal.timeout(HEALTH_TIMEOUT_MS), cache: "no-store" });
    const body = (await response.json()) as Partial<Extract<HealthReport, { reachable: true }>>;
    if (!body || typeof body.status !== "string" || typeof body.dependencies !== "object") {
      return { reachable: false, error: `Unexpected answer (HTTP ${response.status})`, checkedAt };
    }
    return { reachable: true, status: body.status, version: String(body.version ?? "unknown"), dependencies: body.dependencies, checkedAt };
  } catch (error) {
    const timedOut = error instanceof DOMException && error.name === "TimeoutError";
    return { reachable: false, error: timedOut ? `No answer within ${HEALTH_TIMEOUT_MS / 1000} s` : "The service does not answer", checkedAt };
  }
}

const NAMES: Record<string, string> = {
  database: "Database",
  identityProvider: "Identity provider",
  eventBus: "Event bus",
};

/** "identityProvider" → "Identity provider", for dependencies this page doesn't know yet too. */
export function dependencyName(key: string): string {
  if (NAMES[key]) return NAMES[key];
  const words = key.replace(/([a-z])([A-Z])/g, "$1 $2").toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}
