/**
 * Exactly-once money on platforms without an operation id (the MT5 Web API's `/api/trade/balance`,
 * the MT4 gateway's TT_BR_BALANCE): what both connectors share. Each operation is tagged — the
 * record's comment ends with ` ~` and ten hex digits of SHA-256(operation id) — so a retry can
 * look it up before sending again; operations with the same id run one after the other in this
 * process, and the first result of each id is kept, so a retry returns it unchanged and the same
 * id for another request is refused. The platform part (finding the tagged record, sending,
 * reading the result back) is the `perform` each connector passes.
 */
import { createHash } from "node:crypto";
import { connectorErrors } from "./errors.ts";

/** The tag written at the end of a comment, kept out of what users see. */
export const OPERATION_TAG = / ?~[0-9a-f]{10}$/;

/** A stored comment split into what the user wrote and the tag Toolbox added, if any. */
export function splitTag(stored: string): { comment: string; tag: string | null } {
  const match = OPERATION_TAG.exec(stored);
  return match ? { comment: stored.slice(0, match.index), tag: match[0].trimStart() } : { comment: stored, tag: null };
}

export function operationTag(operationId: string): string {
  return `~${createHash("sha256").update(operationId).digest("hex").slice(0, 10)}`;
}

/** The user's comment, cut to `keep` characters, then the tag (the platform's limit minus 12). */
export function taggedComment(comment: string, operationId: string, keep: number): string {
  const kept = comment.slice(0, keep).trimEnd();
  return kept === "" ? operationTag(operationId) : `${kept} ${operationTag(operationId)}`;
}

export function operationAlreadyUsed() {
  return connectorErrors.invalidRequest("This operation id was already used for a different request. Use a new id for a new operation.");
}

/** Results remembered per process; older ids are found again through their tag. */
const REMEMBERED = 10_000;

export class OncePerOperation<A> {
  private readonly results = new Map<string, { fingerprint: string; answer: A }>();
  private readonly queues = new Map<string, Promise<unknown>>();

  /** `fingerprint`: what makes two requests the same (login, type, amount, comment). */
  run(operationId: string, fingerprint: string, perform: () => Promise<A>): Promise<A> {
    const previous = this.queues.get(operationId) ?? Promise.resolve();
    const attempt = () => this.once(operationId, fingerprint, perform);
    const run = previous.then(attempt, attempt);
    const tail = run.catch(() => undefined);
    this.queues.set(operationId, tail);
    void tail.then(() => {
      if (this.queues.get(operationId) === tail) this.queues.delete(operationId);
    });
    return run;
  }

  private async once(operationId: string, fingerprint: string, perform: () => Promise<A>): Promise<A> {
    const known = this.results.get(operationId);
    if (known) {
      if (known.fingerprint !== fingerprint) throw operationAlreadyUsed();
      return structuredClone(known.answer);
    }
    const answer = await perform();
    this.results.set(operationId, { fingerprint, answer: structuredClone(answer) });
    if (this.results.size > REMEMBERED) {
      const oldest = this.results.keys().next().value;
      if (oldest !== undefined) this.results.delete(oldest);
    }
    return answer;
  }
}
