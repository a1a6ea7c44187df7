/**
 * Direct messages between nodes, beside the event bus: a request answered by the one node that
 * serves its subject, and messages sent to whoever listens. Nothing is kept (core NATS, not the
 * stream): a node that is not there does not get them. The simulated platforms run on one node and
 * are reached from the others through it (decision 0069). In process, both ends are this process.
 */
export interface NodeLink {
  /** Answers requests on `subject` (one node serves a subject at a time). */
  serve(subject: string, handler: (payload: unknown) => Promise<unknown>): () => void;
  /** The answer of the node serving `subject`; rejects with NodeLinkUnreachable when none answers in time. */
  request(subject: string, payload: unknown, timeoutMs: number): Promise<unknown>;
  /** To every node listening on `subject` now; lost if none does. */
  send(subject: string, payload: unknown): void;
  listen(subject: string, handler: (payload: unknown) => void): () => void;
}

export class NodeLinkUnreachable extends Error {
  constructor(subject: string, why: string) {
    super(`No node answered on ${subject}: ${why}`);
  }
}

/** The link of a single node: requests and messages stay in this process. */
export function inProcessLink(): NodeLink {
  const served = new Map<string, (payload: unknown) => Promise<unknown>>();
  const listeners = new Map<string, Set<(payload: unknown) => void>>();
  const copy = (payload: unknown) => JSON.parse(JSON.stringify(payload ?? null)) as unknown;
  return {
    serve(subject, handler) {
      served.set(subject, handler);
      return () => {
        if (served.get(subject) === handler) served.delete(subject);
      };
    },
    async request(subject, payload) {
      const handler = served.get(subject);
      if (!handler) throw new NodeLinkUnreachable(subject, "no node serves it");
      return copy(await handler(copy(payload)));
    },
    send(subject, payload) {
      const message = copy(payload);
      for (const handler of [...(listeners.get(subject) ?? [])]) queueMicrotask(() => handler(message));
    },
    listen(subject, handler) {
      let set = listeners.get(subject);
      if (!set) listeners.set(subject, (set = new Set()));
      set.add(handler);
      return () => set.delete(handler);
    },
  };
}
