/**
 * One idea: recognising a Match-Trader operation already done, since the vendor has no operation
 * id. Each money operation carries its id as a tag in its comment (`[tb:<id>]`), taken off again
 * before anything reaches Toolbox (orders carry none: orderJournal.ts); answers are remembered per id for the connector's
 * lifetime (ExactlyOnce). The lookups by tag and by position state are the session's
 * (server/connectors/matchTraderApi/session.ts).
 */
import type { MtError, MtEvent } from "../matchTrader/native.ts";
import { NativeError } from "../wire/wire.ts";

const TAG = /\s?\[tb:([^\]]+)\]$/;
export const tag = (comment: string, id: string) => `${comment} [tb:${id}]`.trimStart();
export const untag = (comment: string) => comment.replace(TAG, "");
export const tagOf = (comment: string) => TAG.exec(comment)?.[1] ?? null;

export const cleanPosition = <P extends { comment: string }>(p: P): P => ({ ...p, comment: untag(p.comment) });
const cleanEvent = (e: MtEvent): MtEvent => {
  switch (e.type) {
    case "POSITION_OPENED":
    case "POSITION_UPDATED":
      return { ...e, position: cleanPosition(e.position) };
    case "POSITION_PARTIALLY_CLOSED":
      return { ...e, position: cleanPosition(e.position), closed: cleanPosition(e.closed) };
    case "POSITION_CLOSED":
      return { ...e, closed: cleanPosition(e.closed) };
    case "LEDGER_ADDED":
      return { ...e, ledger: cleanPosition(e.ledger) };
    case "ACCOUNT_UPDATED":
      return e;
    case "ORDER_CREATED":
    case "ORDER_UPDATED":
    case "ORDER_CANCELLED":
    case "ORDER_FILLED":
      return { ...e, order: cleanPosition(e.order) };
  }
};
export const cleanEvents = (events: MtEvent[]) => events.map(cleanEvent);

/** How many answers are remembered; older ones are found again by their tag (money) when retried. */
const REMEMBERED_ANSWERS = 50_000;

/**
 * Answers remembered per operation id, and operations under way, shared by every session of one
 * connector. With `keepFailures` (orders) a definite refusal by the server is remembered too, so a
 * retry gets the same refusal and never runs again; a failure without an answer (a lost link) is
 * not, so a retry looks the operation up on the server instead. Money keeps the contract of
 * docs/connectors.md: a rejected operation is not remembered and the same id may succeed later.
 */
export class ExactlyOnce {
  private readonly done = new Map<string, { fingerprint: string; result: unknown } | { fingerprint: string; failure: Error }>();
  private readonly running = new Map<string, { fingerprint: string; promise: Promise<unknown> }>();

  run<T>(id: string, fingerprint: string, operation: () => Promise<T>, options: { keepFailures?: boolean } = {}): Promise<T> {
    const known = this.done.get(id) ?? this.running.get(id);
    if (known) {
      if (known.fingerprint !== fingerprint) return Promise.reject(alreadyUsed(id));
      if ("promise" in known) return known.promise as Promise<T>;
      return "failure" in known ? Promise.reject(known.failure) : Promise.resolve(known.result as T);
    }
    const promise = operation().then(
      (result) => {
        this.running.delete(id);
        this.keep(id, { fingerprint, result });
        return result;
      },
      (error: unknown) => {
        this.running.delete(id);
        if (options.keepFailures && error instanceof NativeError && refusedByServer(error as NativeError<MtError>))
          this.keep(id, { fingerprint, failure: error });
        throw error;
      },
    );
    this.running.set(id, { fingerprint, promise });
    return promise;
  }

  private keep(id: string, entry: { fingerprint: string; result: unknown } | { fingerprint: string; failure: Error }) {
    this.done.set(id, entry);
    if (this.done.size > REMEMBERED_ANSWERS) this.done.delete(this.done.keys().next().value!);
  }
}

/**
 * The server answered and refused the request itself (invalid, not found, a business rule): the
 * same request would be refused again. Busy answers (429, TOO_MANY_REQUESTS, 5xx) and refused
 * credentials say nothing about the request and are not kept.
 */
function refusedByServer(error: NativeError<MtError>): boolean {
  const native = error.native;
  return [400, 404, 409, 422].includes(native.status) && native.errorCode !== "TOO_MANY_REQUESTS";
}

export function alreadyUsed(id: string) {
  return new NativeError({ status: 400, errorCode: "INVALID_REQUEST", message: `The operation id "${id}" was already used for a different operation.` });
}
