/**
 * Exactly-once for operations that move money or positions: the first result of each operation id
 * is kept, a retry gets it back without running again, and reusing an id for a different request
 * is refused. A failed money operation is not kept, so a rejected deposit can be retried as is;
 * an order's refusal is (`keepRefusals`): the same request gets the same refusal and never runs
 * later, when it might fill, as MT4's gateway keeps it per request id (docs/mt4-gateway.md).
 * Bounded (oldest forgotten first); a real platform keeps such ids for a limited time too.
 */
import { ConnectorError, connectorErrors } from "../../errors.ts";

type Kept = { fingerprint: string; result: unknown } | { fingerprint: string; refusal: ConnectorError };

export class RememberedResults {
  private readonly results = new Map<string, Kept>();

  constructor(private readonly capacity = 1_000_000) {}

  once<T>(key: string, request: object, run: () => T, options: { keepRefusals?: boolean } = {}): T {
    const fingerprint = canonical(request);
    const known = this.results.get(key);
    if (known) {
      if (known.fingerprint !== fingerprint)
        throw connectorErrors.invalidRequest("This operation id was already used for a different request. Use a new id for a new operation.");
      if ("refusal" in known) throw new ConnectorError(known.refusal.code, known.refusal.message, known.refusal.reason);
      return structuredClone(known.result) as T;
    }
    let result: T;
    try {
      result = run();
    } catch (error) {
      // A refusal of the request itself, not a busy server: the same request would be refused again.
      if (options.keepRefusals && error instanceof ConnectorError && !error.retryable && error.code !== "resyncRequired")
        this.keep(key, { fingerprint, refusal: error });
      throw error;
    }
    this.keep(key, { fingerprint, result: structuredClone(result) });
    return result;
  }

  private keep(key: string, entry: Kept): void {
    this.results.set(key, entry);
    if (this.results.size > this.capacity) {
      const oldest = this.results.keys().next().value;
      if (oldest !== undefined) this.results.delete(oldest);
    }
  }
}

/** JSON with sorted keys, so the same request always has the same fingerprint. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => a.localeCompare(b)))
      : v,
  );
}
