export interface Ping {
  ok: boolean;
  /** Round trip in milliseconds (also when the answer was an error). */
  latencyMs: number;
  status: number;
  version?: string;
}

/** One round trip to /api/health: no token needed, and it touches the database and the provider. */
export async function pingApi(): Promise<Ping> {
  const started = performance.now();
  try {
    const response = await fetch(`/api/health?t=${Date.now()}`, { cache: "no-store", signal: AbortSignal.timeout(10_000) });
    const body = (await response.json().catch(() => ({}))) as { version?: string };
    return { ok: response.ok, latencyMs: Math.round(performance.now() - started), status: response.status, version: body.version };
  } catch {
    return { ok: false, latencyMs: Math.round(performance.now() - started), status: 0 };
  }
}
