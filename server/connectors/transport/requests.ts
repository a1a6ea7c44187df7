/**
 * The session side every HTTPS vendor client shares: the handshake that opens it, a JSON request
 * on the session's undici connection read back in full (a failure without an answer in a
 * dealer's words, a server that forgot the session ending it, an answer that is not the vendor's
 * saying so), the requests under way (tests wait on them), and the session's repeating timers
 * (ping, poll) on its Clock.
 */
import type { Client, Dispatcher } from "undici";
import type { Clock, TimerHandle } from "../clock.ts";
import { connectorErrors } from "../errors.ts";
import { LinkError, type WireCredentials } from "../wire/wire.ts";
import { networkError } from "./client.ts";

export interface JsonExchange<T> {
  /** Whether the session is up: a failure then is a `closed` link, before it `unreachable`; read when the failure comes. */
  established(): boolean;
  /** The HTTP status by which the server says it no longer knows the session (MT5 403, the MT4 gateway 401). */
  sessionGoneStatus: number;
  /** The session is gone at the server: the client ends it (the request then fails as a closed link). */
  onSessionGone(): void;
  /** The body's text as the vendor writes JSON; throws when it is not. */
  parse(text: string): unknown;
  /** The vendor's envelope (e.g. a `retcode` or `ret` field). */
  isAnswer(parsed: unknown): parsed is T;
  /** What a dealer is told when the answer is not the vendor's (a wrong address or port). */
  notTheVendor: string;
}

/** Sends a request and reads its whole JSON answer as the vendor's envelope. */
export async function requestJson<T>(client: Client, request: Dispatcher.RequestOptions, rules: JsonExchange<T>): Promise<T> {
  const sent = client.request(request);
  let response;
  try {
    response = await sent;
  } catch (error) {
    throw networkError(error, !rules.established());
  }
  const text = await response.body.text().catch((error: unknown) => {
    throw networkError(error, !rules.established());
  });
  if (response.statusCode === rules.sessionGoneStatus && rules.established()) {
    rules.onSessionGone();
    throw new LinkError("closed");
  }
  let parsed: unknown;
  try {
    parsed = rules.parse(text);
  } catch {
    throw connectorErrors.unreachable(rules.notTheVendor);
  }
  if (!rules.isAnswer(parsed)) throw connectorErrors.unreachable(rules.notTheVendor);
  return parsed;
}

/** The requests a session has under way, so a test can wait until none is. */
export class InFlight {
  private readonly running = new Set<Promise<unknown>>();

  get size(): number {
    return this.running.size;
  }

  async track<T>(work: Promise<T>): Promise<T> {
    this.running.add(work);
    try {
      return await work;
    } finally {
      this.running.delete(work);
    }
  }

  /** Resolves once nothing is under way, requests started meanwhile included. */
  async settle(): Promise<void> {
    while (this.running.size > 0) await Promise.allSettled([...this.running]);
  }
}

/**
 * A session's repeating tasks on its Clock. A failed task is dropped: a failed ping or poll shows
 * as a lost connection, which ends the session and with it the timers.
 */
export class SessionTimers {
  private readonly timers: TimerHandle[] = [];
  private stopped = false;

  constructor(private readonly clock: Clock) {}

  every(ms: number, task: () => Promise<unknown>): void {
    const schedule = () => {
      const handle = this.clock.setTimeout(() => {
        const at = this.timers.indexOf(handle);
        if (at >= 0) this.timers.splice(at, 1);
        if (this.stopped) return;
        schedule();
        task().catch(() => undefined);
      }, ms);
      this.timers.push(handle);
    };
    schedule();
  }

  stop(): void {
    this.stopped = true;
    for (const timer of this.timers.splice(0)) this.clock.clearTimeout(timer);
  }
}

/** Runs a new session's handshake (login, challenge); a session that fails it is closed before the failure goes on. */
export async function handshaken<S extends { handshake(credentials: WireCredentials): Promise<void>; close(): void }>(
  session: S,
  credentials: WireCredentials,
): Promise<S> {
  try {
    await session.handshake(credentials);
  } catch (error) {
    session.close();
    throw error;
  }
  return session;
}
