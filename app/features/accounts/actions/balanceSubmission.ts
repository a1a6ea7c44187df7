import { ApiError } from "~/api";
import { retry, type RetryOptions } from "~/api/retry";

/**
 * Where a balance operation stands, from the browser's side:
 * - `ready`: nothing sent yet (or the last try was refused: the next one is a new operation);
 * - `sending`: the first request is out;
 * - `confirming`: an answer did not say whether the money moved (no answer, a timeout, 409 "still
 *   in progress", a 5xx): the same request is asked again, with the same key, after a backoff;
 * - `uncertain`: confirming gave up for now (the network stayed down): the outcome is unknown
 *   until the person checks again, with the same key;
 * - `done`: the server's answer is the result.
 */
export type SubmissionPhase = "ready" | "sending" | "confirming" | "uncertain" | "done";

export interface SubmissionState<Body, Result> {
  phase: SubmissionPhase;
  /** The request in flight or in doubt (null when none). */
  body: Body | null;
  result: Result | null;
  /** The last failure (null while it goes well). */
  error: unknown;
}

/** How long confirming keeps asking before it hands the choice back to the person. */
export const CONFIRM_RETRY: RetryOptions = { maxRetryTime: 120_000 };

/**
 * Exactly-once money movements from the browser's side. One Idempotency-Key per operation; the
 * server returns the first result for a key it has seen, so:
 * - a double click while a request is out joins it instead of sending again;
 * - an uncertain answer (see `isUncertain`) is never taken for a refusal: the same request is
 *   asked again with the same key and a backoff until a final answer arrives, and the key is
 *   kept whatever is sent next, so the server can never move money twice (the same request is
 *   answered with the first result, a different one is refused);
 * - only a final refusal (422, or 400/403/404: nothing was done) ends the key: the next submission
 *   is a new operation with a new key, changed or not (a refusal is the old key's final answer);
 * - a success is final: submitting again gives the same result without sending.
 */
export class BalanceSubmission<Body, Result> {
  private currentKey: string;
  private keySpent = false;
  /** The request whose outcome is unknown, if any (with its canonical text). */
  private doubt: { body: Body; text: string } | null = null;
  private inFlight: Promise<Result> | null = null;
  private state: SubmissionState<Body, Result> = { phase: "ready", body: null, result: null, error: null };
  private readonly listeners = new Set<() => void>();

  constructor(
    private readonly newKey: () => string = () => crypto.randomUUID(),
    private readonly retryOptions: RetryOptions = CONFIRM_RETRY,
  ) {
    this.currentKey = newKey();
  }

  get key(): string {
    return this.currentKey;
  }

  get pending(): boolean {
    return this.inFlight !== null;
  }

  /** A request went out and no answer yet says whether it was done. */
  get uncertain(): boolean {
    return this.doubt !== null;
  }

  /** For useSyncExternalStore: the same object until something changes. */
  readonly snapshot = (): SubmissionState<Body, Result> => this.state;

  readonly subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  submit(body: Body, send: (body: Body, key: string) => Promise<Result>): Promise<Result> {
    if (this.inFlight) return this.inFlight;
    if (this.state.phase === "done") return Promise.resolve(this.state.result as Result);
    if (this.keySpent && this.doubt === null) {
      this.currentKey = this.newKey();
      this.keySpent = false;
    }
    const key = this.currentKey;
    const text = canonical(body);
    this.update({ phase: this.doubt === null ? "sending" : "confirming", body, error: null });
    const inDoubt = (error: unknown) => {
      if (isUncertain(error)) this.doubt ??= { body, text };
    };

    const attempt = retry(() => send(body, key), {
      ...this.retryOptions,
      retryIf: isRetryable,
      onRetry: (error) => {
        inDoubt(error);
        this.update({ phase: "confirming", error });
      },
    });
    this.inFlight = attempt.then(
      (result) => {
        this.doubt = null;
        this.keySpent = true;
        this.update({ phase: "done", result, error: null });
        return result;
      },
      (error: unknown) => {
        inDoubt(error);
        if (isRefusal(error)) {
          // The server's final answer to this very request: nothing was done, and the key is spent.
          // (A refusal of a different request leaves the one in doubt in doubt.)
          if (this.doubt?.text === text) this.doubt = null;
          this.keySpent = true;
        }
        this.update({ phase: this.doubt ? "uncertain" : "ready", body: this.doubt?.body ?? null, error });
        throw error;
      },
    );
    const settle = () => {
      this.inFlight = null;
    };
    this.inFlight.then(settle, settle);
    return this.inFlight;
  }

  private update(change: Partial<SubmissionState<Body, Result>>) {
    this.state = { ...this.state, ...change };
    for (const listener of this.listeners) listener();
  }
}

/**
 * No answer, a timeout, 409 (the same operation is still in progress) or a server failure: the
 * operation may or may not have been done.
 */
export function isUncertain(error: unknown): boolean {
  if (!(error instanceof ApiError)) return true;
  return error.status === 0 || error.status === 408 || error.status === 409 || error.status >= 500;
}

/** Worth asking again with the same key: an uncertain answer, or "too many requests" (nothing was looked at). */
function isRetryable(error: unknown): boolean {
  return isUncertain(error) || (error instanceof ApiError && error.status === 429);
}

/**
 * The server looked at the request and refused it: nothing was done, and that is the key's final
 * answer. (401 and 429 are not: the request was not looked at, so the key stays usable.)
 */
export function isRefusal(error: unknown): boolean {
  return error instanceof ApiError && error.isClientError && !isUncertain(error) && error.status !== 401 && error.status !== 429;
}

/** JSON with sorted keys, so the same request always compares equal. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => a.localeCompare(b)))
      : v,
  );
}
