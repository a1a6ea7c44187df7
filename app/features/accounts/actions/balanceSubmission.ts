import { ApiError } from "~/api";

/**
 * Exactly-once money movements from the browser's side. One Idempotency-Key per opening of the
 * balance dialog; the server returns the first result for a key it has seen, so:
 * - a double click, or a retry of the same submission, reuses the key (and while a request is in
 *   flight, a second submit joins it instead of sending again);
 * - after a definite refusal (the server answered 4xx: nothing was done) the next submission gets
 *   a new key: a refusal is that key's final answer on the server, so trying again — changed or
 *   not — is a new operation;
 * - after an uncertain failure (no answer, a timeout, a 5xx: the money may have moved) the key
 *   is kept whatever the request, so the server can never move money twice: the same request is
 *   answered with the first result, a different one is refused.
 */
export class BalanceSubmission<Body, Result> {
  private currentKey: string;
  private lastBody: string | null = null;
  private uncertainBody: string | null = null;
  private refused = false;
  private inFlight: Promise<Result> | null = null;

  constructor(private readonly newKey: () => string = () => crypto.randomUUID()) {
    this.currentKey = newKey();
  }

  get key(): string {
    return this.currentKey;
  }

  get pending(): boolean {
    return this.inFlight !== null;
  }

  /** A request went out and no answer says whether it was done. */
  get uncertain(): boolean {
    return this.uncertainBody !== null;
  }

  /** The key the next submission of `body` would carry. */
  keyFor(body: Body): string {
    const text = canonical(body);
    if (this.uncertainBody === null && (this.refused || (this.lastBody !== null && text !== this.lastBody))) {
      this.currentKey = this.newKey();
      this.refused = false;
    }
    return this.currentKey;
  }

  submit(body: Body, send: (body: Body, key: string) => Promise<Result>): Promise<Result> {
    if (this.inFlight) return this.inFlight;
    const key = this.keyFor(body);
    const text = canonical(body);
    this.lastBody = text;
    this.inFlight = send(body, key).then(
      (result) => {
        this.uncertainBody = null;
        return result;
      },
      (error: unknown) => {
        if (isUncertain(error)) this.uncertainBody = text;
        else {
          // The server answered this very request with a refusal: nothing was done, and the key is spent.
          if (this.uncertainBody === text) this.uncertainBody = null;
          this.refused = true;
        }
        throw error;
      },
    );
    const settle = () => {
      this.inFlight = null;
    };
    this.inFlight.then(settle, settle);
    return this.inFlight;
  }
}

/** No answer, a timeout or a server failure: the operation may or may not have been done. */
export function isUncertain(error: unknown): boolean {
  if (!(error instanceof ApiError)) return true;
  return error.status === 0 || error.status === 408 || error.status >= 500;
}

/** JSON with sorted keys, so the same request always compares equal. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === "object" && !Array.isArray(v) ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => a.localeCompare(b))) : v,
  );
}
