/**
 * The one client of /api/health (server/modules/health/routes.ts): the /health page and the
 * debug page's latency both ask through it.
 */
export interface DependencyHealth {
  /** `connecting`: the event bus lost NATS and is reconnecting. */
  state: "up" | "connecting" | "down";
  detail?: string;
}

interface Check {
  checkedAt: string;
  /** The round trip in milliseconds, answered or not. */
  latencyMs: number;
  /** The HTTP status (0 when nothing usable came back). */
  httpStatus: number;
}

export type HealthReport =
  | (Check & {
      reachable: true;
      status: "ok" | "degraded";
      version: string;
      dependencies: Record<string, DependencyHealth>;
    })
  | (Check & { reachable: false; error: string });

export const HEALTH_URL = "/api/health";
export const HEALTH_TIMEOUT_MS = 5000;

/** The cache key of the browser's health checks. */
export const healthQueryKey = () => ["health"] as const;

/**
 * Asks /api/health. A degraded service answers 503 with the same body, so the body is read
 * whatever the status; only no answer at all (or not our JSON) counts as unreachable.
 */
export async function fetchHealth(url: string = HEALTH_URL): Promise<HealthReport> {
  const checkedAt = new Date().toISOString();
  const started = performance.now();
  const latency = () => Math.round(performance.now() - started);
  let httpStatus = 0;
  try {
    const response = await fetch(url, { headers: { Accept: "application/json" }, signal: AbortSignal.timeout(HEALTH_TIMEOUT_MS), cache: "no-store" });
    httpStatus = response.status;
    const body = (await response.json()) as Partial<Extract<HealthReport, { reachable: true }>>;
    if (!body || typeof body.status !== "string" || typeof body.dependencies !== "object") {
      return { reachable: false, error: `Unexpected answer (HTTP ${response.status})`, checkedAt, latencyMs: latency(), httpStatus };
    }
    const version = String(body.version ?? "unknown");
    return { reachable: true, status: body.status, version, dependencies: body.dependencies, checkedAt, latencyMs: latency(), httpStatus };
  } catch (error) {
    const timedOut = error instanceof DOMException && error.name === "TimeoutError";
    const problem = timedOut
      ? `No answer within ${HEALTH_TIMEOUT_MS / 1000} s`
      : httpStatus
        ? `Unexpected answer (HTTP ${httpStatus})`
        : "The service does not answer";
    return { reachable: false, error: problem, checkedAt, latencyMs: latency(), httpStatus };
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
