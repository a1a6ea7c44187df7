/**
 * The event bus across nodes: NATS JetStream (used when NATS_URL is set). Why this client and
 * these choices: docs/decisions/0036-event-bus-on-nats-jetstream.md; subjects, the stream and its
 * limits, durability: docs/events.md.
 *  - Publish: each event to `<prefix>.<org>.<platform>.<type>` (./nats/subjects.ts), JSON, with
 *    JetStream acks pipelined: a batch is written at once, in order, and `publish` resolves when
 *    every ack is in. Calls are written in the order they were made. An event's id (`ids`) is its
 *    `Nats-Msg-Id`: the stream stores it once within its duplicate window (docs/decisions/0037).
 *  - `seq` is the stream's sequence. The node reads the stream once (./nats/tap.ts) and hands
 *    each event to its matching subscriptions (./nats/localSubscription.ts), which catch up from
 *    `after` with a consumer of their own first; a `durable` subscription is a durable consumer
 *    (./nats/durableSubscription.ts).
 *  - The connection is kept for ever: lost, the bus says `connecting` (health) and the client
 *    reconnects, re-creating the stream if the server lost it; publishes made meanwhile wait (up
 *    to `publishTimeoutMs`) and then fail, and the caller (the trade feed) tries again.
 */
import { jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager, type PubAck } from "@nats-io/jetstream";
import type { NatsContext } from "./nats/context.ts";
import { DurableSubscription } from "./nats/durableSubscription.ts";
import { LocalSubscription } from "./nats/localSubscription.ts";
import { Tap } from "./nats/tap.ts";
import { connect, headers, type MsgHdrs, type NatsConnection } from "@nats-io/transport-node";
import type { EventBus } from "./bus.ts";
import { NodeLinkUnreachable, type NodeLink } from "./link.ts";
import { ensureStream, STREAM_DEFAULTS, type StreamLimits } from "./nats/stream.ts";
import { subjectOf } from "./nats/subjects.ts";
import type { BusFilter, BusHandler, BusHealth, BusMessage, BusSubscribeOptions, BusSubscription, DomainEvent, DomainEventType } from "./types.ts";

export interface NatsBusLogger {
  info(object: object, message: string): void;
  warn(object: object, message: string): void;
  error(object: object, message: string): void;
}

export interface NatsBusOptions extends Partial<StreamLimits> {
  /** nats://[user:password@]host:port (several comma-separated); never shown by health or the log. */
  url: string;
  /** The stream's name; TOOLBOX_EVENTS by default (tests use one of their own per run). */
  stream?: string;
  /** The subjects' first tokens; `toolbox.ev` by default. */
  subjectPrefix?: string;
  /** How long a publish waits for the connection and the acks before it fails; 5 s by default. */
  publishTimeoutMs?: number;
  /** The connection's name, as the NATS server's monitoring shows it. */
  name?: string;
  log?: NatsBusLogger;
  onHandlerError?: (error: unknown, message: BusMessage) => void;
}

export type NatsBus = EventBus & {
  /** Resolves once connected and the stream is in place (rejects only if closed first). */
  readonly ready: Promise<void>;
  readonly stream: string;
  readonly subjectPrefix: string;
};

interface Clients {
  nc: NatsConnection;
  js: JetStreamClient;
  jsm: JetStreamManager;
}

const quiet: NatsBusLogger = { info: () => {}, warn: () => {}, error: () => {} };

export function createNatsBus(options: NatsBusOptions): NatsBus {
  const stream = options.stream ?? "TOOLBOX_EVENTS";
  const subjectPrefix = options.subjectPrefix ?? "toolbox.ev";
  const limits: StreamLimits = { ...STREAM_DEFAULTS, ...definedOf(options) };
  const publishTimeoutMs = options.publishTimeoutMs ?? 5_000;
  const log = options.log ?? quiet;
  const onHandlerError = options.onHandlerError ?? ((error) => log.error({ err: error }, "event bus handler failed"));
  const where = serversWithoutCredentials(options.url);

  let state: BusHealth["state"] = "connecting";
  let error: string | undefined = `Connecting to NATS at ${where}`;
  let lastSeq = 0;
  let clients: Clients | null = null;
  let closed = false;
  /** Writes happen one after another, in the order publish was called. */
  let tail: Promise<unknown> = Promise.resolve();
  const durables = new Set<DurableSubscription>();
  const waiters = new Set<(c: Clients | null) => void>();

  const setUp = (c: Clients | null) => {
    for (const wake of [...waiters]) wake(c);
    waiters.clear();
  };
  const whenConnected = (timeoutMs?: number): Promise<Clients | null> => {
    if (closed) return Promise.resolve(null);
    if (clients && state === "up") return Promise.resolve(clients);
    return new Promise((resolve) => {
      const done = (c: Clients | null) => {
        if (timer) clearTimeout(timer);
        waiters.delete(done);
        resolve(c);
      };
      const timer = timeoutMs === undefined ? undefined : setTimeout(() => done(null), timeoutMs);
      waiters.add(done);
    });
  };

  const ctx: NatsContext = {
    stream,
    subjectPrefix,
    connected: async () => {
      const c = await whenConnected();
      return c && { js: c.js, jsm: c.jsm };
    },
    saw: (seq) => {
      if (seq > lastSeq) lastSeq = seq;
    },
    onHandlerError,
    onFailure: (err, what) => log.error({ err: messageOf(err) }, what),
  };
  const tap = new Tap(ctx);

  const sleeps = new Set<() => void>();
  /** The first connection: tried again every few seconds until it works or the bus is closed (never a crash). */
  async function firstConnection(): Promise<NatsConnection | null> {
    for (let attempt = 1; !closed; attempt++) {
      try {
        return await connect({
          servers: options.url.split(",").map((s) => s.trim()),
          name: options.name ?? "toolbox",
          maxReconnectAttempts: -1,
          reconnectTimeWait: 1_000,
        });
      } catch (err) {
        error = `Connecting to NATS at ${where}: ${messageOf(err)}`;
        if (attempt === 1) log.warn({ servers: where, err: messageOf(err) }, "event bus cannot reach NATS yet; trying again");
        await new Promise<void>((resolve) => {
          const wake = () => {
            clearTimeout(timer);
            sleeps.delete(wake);
            resolve();
          };
          const timer = setTimeout(wake, Math.min(5_000, 500 * attempt));
          sleeps.add(wake);
        });
      }
    }
    return null;
  }

  const ready = (async () => {
    const nc = await firstConnection();
    if (!nc) throw new Error("The event bus was closed before it connected.");
    if (closed) {
      await nc.close();
      throw new Error("The event bus was closed before it connected.");
    }
    const jsm = await jetstreamManager(nc);
    await ensureStream(jsm, stream, subjectPrefix, limits);
    lastSeq = Math.max(lastSeq, (await jsm.streams.info(stream)).state.last_seq);
    if (closed) {
      await nc.close();
      throw new Error("The event bus was closed before it connected.");
    }
    clients = { nc, js: jetstream(nc, { timeout: publishTimeoutMs }), jsm };
    state = "up";
    error = undefined;
    log.info({ servers: where, stream }, "event bus connected to NATS");
    setUp(clients);
    void follow(nc, jsm);
    void tap.run(clients.js, lastSeq + 1);
  })();
  ready.catch((err: unknown) => {
    if (!closed) {
      state = "down";
      error = `NATS at ${where}: ${messageOf(err)}`;
      log.error({ err: messageOf(err), servers: where }, "event bus cannot connect to NATS");
    }
  });

  /** Follows the connection's state; after a reconnect, puts the stream back if the server lost it. */
  async function follow(nc: NatsConnection, jsm: JetStreamManager) {
    for await (const status of nc.status()) {
      if (status.type === "disconnect" || status.type === "reconnecting") {
        if (state === "up") log.warn({ servers: where }, "event bus lost NATS; reconnecting");
        state = "connecting";
        error = `Reconnecting to NATS at ${where}`;
      } else if (status.type === "reconnect") {
        try {
          await ensureStream(jsm, stream, subjectPrefix, limits);
          state = "up";
          error = undefined;
          log.info({ servers: where }, "event bus reconnected to NATS");
          setUp(clients);
        } catch (err) {
          error = `NATS at ${where}: ${messageOf(err)}`;
          log.error({ err: messageOf(err) }, "event bus cannot set up its stream after reconnecting");
        }
      }
    }
  }

  const write = async (list: readonly DomainEvent[], ids: readonly (string | undefined)[] | undefined): Promise<Promise<PubAck>> => {
    const c = await whenConnected(publishTimeoutMs);
    if (!c) throw new Error(closed ? "The event bus is closed." : `The event bus cannot reach NATS at ${where}.`);
    // Synchronous, so the messages leave in this order. Only the last asks JetStream for an ack:
    // the server stores one connection's messages in the order they came, so its ack confirms the
    // batch (an ack per message cost 30x the CPU: docs/decisions/0036).
    // Each id is the message's `Nats-Msg-Id`: the stream stores an id it already holds (within its
    // duplicate window) once, so a batch published again after a failed ack is not stored twice.
    const last = list.length - 1;
    for (let i = 0; i < last; i++) {
      const id = ids?.[i];
      c.nc.publish(subjectOf(subjectPrefix, list[i]!), JSON.stringify(list[i]), id === undefined ? undefined : { headers: msgIdHeader(id) });
    }
    const lastId = ids?.[last];
    return c.js.publish(subjectOf(subjectPrefix, list[last]!), JSON.stringify(list[last]), lastId === undefined ? undefined : { msgID: lastId });
  };

  const linkSubject = (subject: string) => `${subjectPrefix}-link.${subject}`;
  const encode = (payload: unknown) => JSON.stringify(payload ?? null);
  /** Subscribes once connected (the client keeps its subscriptions across reconnects). */
  const onSubject = (subject: string, callback: (data: string, respond: (answer: string) => void) => void): (() => void) => {
    let stopped = false;
    let unsubscribe = () => {};
    void whenConnected().then((c) => {
      if (!c || stopped) return;
      const sub = c.nc.subscribe(linkSubject(subject), {
        callback: (err, msg) => {
          if (!err) callback(msg.string(), (answer) => msg.respond(answer));
        },
      });
      unsubscribe = () => sub.unsubscribe();
    });
    return () => {
      stopped = true;
      unsubscribe();
    };
  };
  const link: NodeLink = {
    serve(subject, handler) {
      return onSubject(subject, (data, respond) => {
        void handler(JSON.parse(data) as unknown).then(
          (answer) => respond(encode(answer)),
          (err: unknown) => log.warn({ err: messageOf(err), subject }, "a node link request failed"),
        );
      });
    },
    async request(subject, payload, timeoutMs) {
      const c = await whenConnected(timeoutMs);
      if (!c) throw new NodeLinkUnreachable(subject, closed ? "the bus is closed" : "NATS is away");
      try {
        const answer = await c.nc.request(linkSubject(subject), encode(payload), { timeout: timeoutMs });
        return JSON.parse(answer.string()) as unknown;
      } catch (err) {
        throw new NodeLinkUnreachable(subject, messageOf(err));
      }
    },
    send(subject, payload) {
      const c = clients;
      if (c && state === "up") c.nc.publish(linkSubject(subject), encode(payload));
    },
    listen(subject, handler) {
      return onSubject(subject, (data) => handler(JSON.parse(data) as unknown));
    },
  };

  return {
    kind: "nats",
    link,
    ready,
    stream,
    subjectPrefix,

    async publish(events, publishOptions) {
      const list: readonly DomainEvent[] = Array.isArray(events) ? events : [events as DomainEvent];
      if (list.length === 0) return;
      const ids = publishOptions?.ids;
      if (ids !== undefined && ids.length !== list.length) throw new Error(`${ids.length} message ids for ${list.length} events.`);
      const written = tail.then(() => write(list, ids));
      tail = written.catch(() => undefined);
      const { seq } = await written;
      if (seq > lastSeq) lastSeq = seq;
    },

    subscribe<T extends DomainEventType>(
      filter: BusFilter<T>,
      handler: BusHandler<Extract<DomainEvent, { type: T }>>,
      subscribeOptions: BusSubscribeOptions = {},
    ): BusSubscription {
      const { durable } = subscribeOptions;
      if (durable === undefined) return new LocalSubscription(ctx, tap, filter, handler as BusHandler, subscribeOptions, lastSeq, () => {});
      if (!/^[A-Za-z0-9_-]+$/.test(durable)) throw new Error(`A durable subscription's name holds letters, digits, - and _ only (${durable}).`);
      const sub = new DurableSubscription(ctx, durable, filter, handler as BusHandler, subscribeOptions, lastSeq, () => durables.delete(sub));
      durables.add(sub);
      return sub;
    },

    health(): BusHealth {
      return { kind: "nats", state: closed ? "down" : state, lastSeq, subscriptions: tap.size + durables.size, ...(error && !closed ? { error } : {}) };
    },

    async close() {
      if (closed) return;
      // Publishes still waiting for a connection fail now; those written wait for their acks.
      closed = true;
      state = "down";
      setUp(null);
      for (const wake of [...sleeps]) wake();
      for (const sub of [...durables]) sub.close();
      tap.stop();
      await tail;
      const c = clients;
      clients = null;
      if (c) await c.nc.drain().catch(() => c.nc.close());
    },
  };
}

/** JetStream's message id header, as `msgID` sets it on a JetStream publish. */
function msgIdHeader(id: string): MsgHdrs {
  const h = headers();
  h.set("Nats-Msg-Id", id);
  return h;
}

function definedOf(options: NatsBusOptions): Partial<StreamLimits> {
  const out: Partial<StreamLimits> = {};
  if (options.maxAgeMs !== undefined) out.maxAgeMs = options.maxAgeMs;
  if (options.maxBytes !== undefined) out.maxBytes = options.maxBytes;
  if (options.maxMessages !== undefined) out.maxMessages = options.maxMessages;
  if (options.duplicateWindowMs !== undefined) out.duplicateWindowMs = options.duplicateWindowMs;
  if (options.storage !== undefined) out.storage = options.storage;
  return out;
}

/** host:port of each server, without user, password or token. */
export function serversWithoutCredentials(url: string): string {
  return url
    .split(",")
    .map((s) =>
      s
        .trim()
        .replace(/^[a-z]+:\/\//i, "")
        .replace(/^[^@/]*@/, ""),
    )
    .join(",");
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
