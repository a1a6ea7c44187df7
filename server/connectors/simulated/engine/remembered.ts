/**
 * Exactly-once for operations that move money or positions: the first result of each operation id
 * is kept, a retry gets it back without running again, and reusing an id for a different request
 * is refused. Failed operations are not kept, so a rejected deposit can be retried as is.
 * Bounded (oldest forgotten first); a real platform keeps such ids for a limited time too.
 */
import { connectorErrors } from "../../errors.ts";

export class RememberedResults {
  private readonly results = new Map<string, { fingerprint: string; result: unknown }>();

  constructor(private readonly capacity = 1_000_000) {}

  once<T>(key: string, request: object, run: () => T): T {
    const fingerprint = canonical(request);
    const known = this.results.get(key);
    if (known) {
      if (known.fingerprint !== fingerprint)
        throw connectorErrors.invalidRequest("This operation id was already used for a different request. Use a new id for a new operation.");
      return structuredClone(known.result) as T;
    }
    const result = run();
    this.results.set(key, { fingerprint, result: structuredClone(result) });
    if (this.results.size > this.capacity) {
      const oldest = this.results.keys().next().value;
      if (oldest !== undefined) this.results.delete(oldest);
    }
    return result;
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
