/**
 * Simulated platforms as one server for every node (decision 0069). Each simulated platform's
 * server runs on one node: the one holding its host lease (`simulated_servers`, on the database's
 * clock, like the feed leases), which keeps the server's state in the database (a snapshot and the
 * commands since, written before anything is seen: ../../../connectors/simulated/persistence/).
 * A connector on that node reaches the server in process; a connector on another node reaches it
 * over the bus's node link: one request per call of the native session, the server's events sent
 * to it as they happen. When the holder dies, its lease lapses; the next node to connect takes it
 * and restores the server from the database (a gap, then the same accounts and positions). A clean
 * stop saves a snapshot and releases the lease at once.
 *
 * One idea: which node runs each simulated server, and how the others reach it.
 */
import { randomUUID } from "node:crypto";
import type { FastifyBaseLogger } from "fastify";
import { simulatedCodec, type SimulatedTransports } from "../../../connectors/simulated/connector.ts";
import type { LeverageChange } from "../../../connectors/simulated/engine/flexibleLeverage.ts";
import type { StoreFailure } from "../../../connectors/simulated/persistence/recorder.ts";
import { SimulatedServer, type SimulatedServerOptions } from "../../../connectors/simulated/server.ts";
import type { PlatformCodec } from "../../../connectors/wire/codec.ts";
import {
  LinkError,
  NativeError,
  type NativeTypes,
  type WireCredentials,
  type WireHandlers,
  type WireSession,
  type WireTransport,
} from "../../../connectors/wire/wire.ts";
import type { Db } from "../../../db/client.ts";
import type { NodeLink } from "../../../events/link.ts";
import { acquireHost, appendCommands, loadSimulation, releaseHost, renewHost, saveSnapshot, type HostLease } from "./simulatedHostRepository.ts";

export interface SimulatedHostOptions {
  db: Db;
  /** The bus's node link; without it (a bus of one node) only this node's servers are reached. */
  link: NodeLink | undefined;
  nodeId: string;
  /** The host lease's time to live (FEED_LEASE_TTL_MS), renewed every third of it. */
  ttlMs: number;
  log: FastifyBaseLogger;
  /** What makes the platform's server the same server (a change starts it anew from its seed). */
  identityOf: (platformId: string) => string | null;
  snapshotEveryCommands?: number;
  /** How long a call to a server on another node may take. */
  requestTimeoutMs?: number;
}

interface Hosted {
  key: string;
  lease: HostLease;
  server: SimulatedServer;
  renewal: NodeJS.Timeout;
  unserve: () => void;
  sessions: Map<string, { session: WireSession<NativeTypes>; lastSeen: number; stopQuotes?: () => void }>;
}

type Answer =
  | { value: unknown }
  | { native: object }
  | { link: "closed" | "unreachable" }
  /** `methods`: what the session has (its optional methods included or not), so the other node's stand-in has exactly those. */
  | { sessionId: string; openedAtSequence: number; methods: string[] };

/** Methods of a native session a remote node may call (all but closing, which has its own message). */
const NOT_CALLABLE = new Set(["constructor", "close", "drop", "quoteStream"]);
const REMOTE_SESSION_IDLE_MS = 20_000;
const PING_MS = 3_000;
const SAVE_ON_STOP_MS = 2_000;

export class SimulatedHost implements SimulatedTransports {
  private readonly hosted = new Map<string, Hosted>();
  private readonly starting = new Map<string, Promise<Hosted | null>>();
  /**
   * Per platform, bumped by each `remove`: a start that began before it (its options since
   * changed, or the platform deleted) must not become the platform's server when it is ready.
   */
  private readonly removals = new Map<string, number>();
  private readonly sweeper: NodeJS.Timeout;
  private stopped = false;
  /** Who hears the Flexible Leverage plugin's changes of the servers running here (server/modules/flexibleLeverage/changes.ts). */
  private leverageListeners = new Set<(platformId: string, changes: LeverageChange[]) => void>();

  constructor(private readonly options: SimulatedHostOptions) {
    this.sweeper = setInterval(() => this.sweep(), 5_000);
    this.sweeper.unref();
  }

  transport<N extends NativeTypes>(serverKey: string, options: Omit<SimulatedServerOptions, "clock">, codec: PlatformCodec<N>): WireTransport<N> {
    return {
      open: async (credentials, handlers) => {
        const hosted = await this.host(serverKey, options);
        if (hosted) return hosted.server.transport(codec, this.options.nodeId).open(credentials, handlers);
        return this.openRemote(serverKey, credentials, handlers);
      },
    };
  }

  /**
   * Hears the leverage changes made by the Flexible Leverage plugin of every server running on this
   * node, once each is written (and again for the rounds a takeover replays: key records on the
   * change). Only the node running a server hears its changes. Answers the way to stop hearing.
   */
  onLeverageChanges(listener: (platformId: string, changes: LeverageChange[]) => void): () => void {
    this.leverageListeners.add(listener);
    return () => this.leverageListeners.delete(listener);
  }

  /** The server running on this node for the platform, if it runs here. */
  get(key: string): SimulatedServer | undefined {
    return this.hosted.get(key)?.server;
  }

  /** Stops running the platform's server here (deleted, its options changed, or taken down after a failure) and lets another node take it. */
  remove(key: string): void {
    this.removals.set(key, (this.removals.get(key) ?? 0) + 1);
    // A start in flight stops itself when its lease or server is ready; the next connection starts anew.
    this.starting.delete(key);
    const hosted = this.hosted.get(key);
    if (!hosted) return;
    this.drop(hosted);
    void releaseHost(this.options.db, hosted.lease).catch((err: unknown) =>
      this.options.log.warn({ err, platformId: key }, "cannot release a simulated server"),
    );
  }

  /** A clean stop: each server here saves a snapshot, stops and is released, so another node takes it at once. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.sweeper);
    // A server still starting stops itself when it is ready (start); closing never waits for it.
    await Promise.all(
      [...this.hosted.values()].map(async (hosted) => {
        try {
          // Bounded: a database that does not answer must not hold the shutdown (the command log has every change anyway).
          await Promise.race([hosted.server.saveNow(), new Promise((resolve) => setTimeout(resolve, SAVE_ON_STOP_MS).unref())]);
        } catch (err) {
          this.options.log.warn({ err, platformId: hosted.key }, "cannot save a simulated server");
        }
        this.drop(hosted);
        await releaseHost(this.options.db, hosted.lease).catch(() => {});
      }),
    );
  }

  // ── Running a server here ─────────────────────────────────────────────────────────────────

  private host(key: string, options: Omit<SimulatedServerOptions, "clock">): Promise<Hosted | null> {
    const hosted = this.hosted.get(key);
    if (hosted) return hosted.server.ready.then(() => hosted);
    let starting = this.starting.get(key);
    if (!starting) {
      const started: Promise<Hosted | null> = this.start(key, options).finally(() => {
        if (this.starting.get(key) === started) this.starting.delete(key);
      });
      this.starting.set(key, (starting = started));
    }
    return starting;
  }

  private async start(key: string, options: Omit<SimulatedServerOptions, "clock">): Promise<Hosted | null> {
    if (this.stopped) throw new LinkError("unreachable");
    const { db, nodeId, ttlMs } = this.options;
    const removal = this.removals.get(key) ?? 0;
    const removedSince = () => (this.removals.get(key) ?? 0) !== removal;
    const identity = this.options.identityOf(key) ?? JSON.stringify([options.platform, options.seed, options.accounts, options.tradeRate]);
    let lease: HostLease | null;
    try {
      lease = await acquireHost(db, key, identity, nodeId, ttlMs);
    } catch (err) {
      this.options.log.warn({ err, platformId: key }, "cannot take a simulated server's lease");
      throw new LinkError("unreachable");
    }
    if (!lease) return null;
    const held = lease;
    if (removedSince()) {
      // Removed while the lease was being taken (e.g. its options changed twice in a row): a newer start owns the platform now.
      await releaseHost(db, held).catch(() => {});
      throw new LinkError("unreachable");
    }
    const server = new SimulatedServer({
      ...options,
      populateInSlices: true,
      store: {
        load: () => loadSimulation(db, key),
        append: (commands) => appendCommands(db, held, commands),
        saveSnapshot: (bytes, seq) => saveSnapshot(db, held, bytes, seq),
      },
      snapshotEveryCommands: this.options.snapshotEveryCommands,
      // The clockwork's ticks and steps, about ten a second, written a quarter second at a time
      // (a request's answer is written at once): a few transactions a second per server.
      gatherMs: 250,
      onStoreFailure: (failure) => this.lost(hosted, failure),
    });
    server.onLeverageChanges((changes) => {
      for (const listener of this.leverageListeners) listener(key, changes);
    });
    const renewal = setInterval(
      () => {
        renewHost(db, held, ttlMs).then(
          (renewed) => {
            if (!renewed) this.lost(hosted, new Error("its lease lapsed or was taken over"));
          },
          (err: unknown) => this.lost(hosted, err),
        );
      },
      Math.max(100, Math.floor(ttlMs / 3)),
    );
    renewal.unref();
    const hosted: Hosted = { key, lease, server, renewal, unserve: () => {}, sessions: new Map() };
    if (this.options.link) hosted.unserve = this.options.link.serve(`sim.${key}`, (message) => this.answer(hosted, message as Message));
    this.hosted.set(key, hosted);
    this.options.log.info({ platformId: key, epoch: lease.epoch }, "simulated server runs on this node");
    await server.ready;
    if ((this.stopped || removedSince()) && this.hosted.get(key) === hosted) {
      this.drop(hosted);
      await releaseHost(db, held).catch(() => {});
    }
    if (this.hosted.get(key) !== hosted) throw new LinkError("unreachable");
    server.start();
    return hosted;
  }

  /** The server cannot go on here (its state cannot be written, its lease is gone): it stops; the next connection finds its host anew. */
  private lost(hosted: Hosted, why: unknown): void {
    if (this.hosted.get(hosted.key) !== hosted) return;
    const failure = why as StoreFailure | Error;
    this.options.log.warn({ err: "cause" in failure ? failure.cause : failure, platformId: hosted.key }, "simulated server stopped on this node");
    this.drop(hosted);
  }

  private drop(hosted: Hosted): void {
    if (this.hosted.get(hosted.key) === hosted) this.hosted.delete(hosted.key);
    clearInterval(hosted.renewal);
    hosted.unserve();
    hosted.server.stop();
    for (const { session } of hosted.sessions.values()) session.close();
    hosted.sessions.clear();
  }

  /** Sessions of nodes that stopped asking (they died or lost the link) are closed. */
  private sweep(): void {
    const before = Date.now() - REMOTE_SESSION_IDLE_MS;
    for (const hosted of this.hosted.values())
      for (const [id, entry] of hosted.sessions)
        if (entry.lastSeen < before) {
          entry.session.close();
          hosted.sessions.delete(id);
        }
  }

  // ── Serving other nodes ───────────────────────────────────────────────────────────────────

  private async answer(hosted: Hosted, message: Message): Promise<Answer> {
    const link = this.options.link;
    if (!link || this.hosted.get(hosted.key) !== hosted) return { link: "unreachable" };
    try {
      switch (message.kind) {
        case "open": {
          const sessionId = randomUUID();
          const events = `sim.${hosted.key}.ev.${sessionId}`;
          const codec = simulatedCodec(hosted.server.platform, hosted.server.timeZoneOffsetMinutes);
          const session = await hosted.server.transport(codec, message.node).open(message.credentials, {
            onPacket: (packet) => link.send(events, { packet }),
            onClose: () => {
              hosted.sessions.delete(sessionId);
              link.send(events, { closed: true });
            },
          });
          hosted.sessions.set(sessionId, { session, lastSeen: Date.now() });
          return {
            sessionId,
            openedAtSequence: session.openedAtSequence,
            methods: methodsOf(session).filter((m) => m === "quoteStream" || !NOT_CALLABLE.has(m)),
          };
        }
        case "close": {
          hosted.sessions.get(message.sessionId)?.session.close();
          hosted.sessions.delete(message.sessionId);
          return { value: null };
        }
        case "quotes": {
          // The session's live quotes, sent to the node that asked as they come (core NATS: none kept, as a quote is only worth its latest).
          const entry = hosted.sessions.get(message.sessionId);
          if (!entry) return { link: "closed" };
          entry.stopQuotes?.();
          entry.stopQuotes = message.on
            ? entry.session.quoteStream?.((ticks) => link.send(`sim.${hosted.key}.q.${message.sessionId}`, { ticks }), message.symbols)
            : undefined;
          return { value: null };
        }
        case "ping":
        case "call": {
          const entry = hosted.sessions.get(message.sessionId);
          if (!entry) return { link: "closed" };
          entry.lastSeen = Date.now();
          if (message.kind === "ping") return { value: null };
          const method = (entry.session as unknown as Record<string, unknown>)[message.method];
          if (NOT_CALLABLE.has(message.method) || typeof method !== "function") return { link: "closed" };
          return { value: await (method as (...args: unknown[]) => Promise<unknown>).apply(entry.session, message.args) };
        }
      }
    } catch (error) {
      if (error instanceof NativeError) return { native: (error as NativeError).native };
      if (error instanceof LinkError) return { link: error.kind };
      this.options.log.warn({ err: error as Error, platformId: hosted.key }, "a remote call to a simulated server failed");
      return { link: "closed" };
    }
  }

  // ── Reaching a server on another node ─────────────────────────────────────────────────────

  private async openRemote<N extends NativeTypes>(key: string, credentials: WireCredentials, handlers: WireHandlers<N["event"]>): Promise<WireSession<N>> {
    const link = this.options.link;
    if (!link || this.stopped) throw new LinkError("unreachable");
    const subject = `sim.${key}`;
    const timeoutMs = this.options.requestTimeoutMs ?? 10_000;
    const opened = await request(link, subject, { kind: "open", credentials, node: this.options.nodeId }, timeoutMs, "unreachable");
    if (!("sessionId" in opened)) throw new LinkError("unreachable");
    const { sessionId, openedAtSequence } = opened;
    const methods = new Set(opened.methods);
    let closed = false;
    const stop = () => {
      if (closed) return false;
      closed = true;
      clearInterval(ping);
      unlisten();
      for (const stopQuotes of quoteListeners) stopQuotes();
      quoteListeners.clear();
      return true;
    };
    // The server or the link went away: the connector hears it once, and connects again.
    const drop = () => {
      if (stop()) queueMicrotask(() => handlers.onClose());
    };
    const quoteListeners = new Set<() => void>();
    const unlisten = link.listen(`${subject}.ev.${sessionId}`, (payload) => {
      const message = payload as { packet?: { sequence: number; event: N["event"] }; closed?: boolean };
      if (closed) return;
      if (message.packet) handlers.onPacket(message.packet);
      else if (message.closed) drop();
    });
    const ping = setInterval(() => {
      request(link, subject, { kind: "ping", sessionId }, timeoutMs, "closed").catch(drop);
    }, PING_MS);
    ping.unref();
    const call = async (method: string, args: unknown[]): Promise<unknown> => {
      if (closed) throw new LinkError("closed");
      try {
        return await request(link, subject, { kind: "call", sessionId, method, args }, timeoutMs, "closed").then((answer) =>
          "value" in answer ? answer.value : null,
        );
      } catch (error) {
        if (error instanceof LinkError) drop();
        throw error;
      }
    };
    // Live quotes: the host sends them to this node as its session hears them.
    const remoteQuotes = (onTicks: (ticks: readonly N["quote"][]) => void, symbols: readonly string[] | null = null) => {
      const unlistenQuotes = link.listen(`${subject}.q.${sessionId}`, (payload) => {
        if (!closed) onTicks((payload as { ticks: N["quote"][] }).ticks);
      });
      const asked = (on: boolean) => request(link, subject, { kind: "quotes", sessionId, on, symbols }, timeoutMs, "closed").catch(() => {});
      void asked(true);
      const stopQuotes = () => {
        if (!quoteListeners.delete(stopQuotes)) return;
        unlistenQuotes();
        if (!closed) void asked(false);
      };
      quoteListeners.add(stopQuotes);
      return stopQuotes;
    };
    // Every method the host's session has is one call (pending orders included); one it lacks is absent here too.
    return new Proxy({} as WireSession<N>, {
      get: (_target, name) => {
        if (name === "openedAtSequence") return openedAtSequence;
        if (name === "close")
          return () => {
            if (stop()) void request(link, subject, { kind: "close", sessionId }, timeoutMs, "closed").catch(() => {});
          };
        if (typeof name !== "string" || !methods.has(name)) return undefined;
        if (name === "quoteStream") return remoteQuotes;
        return (...args: unknown[]) => call(name, args);
      },
      has: (_target, name) => name === "openedAtSequence" || name === "close" || (typeof name === "string" && methods.has(name)),
    });
  }
}

/** The functions a session has, own or inherited (`quoteStream` included when it has one; never `then`). */
function methodsOf(session: object): string[] {
  const names = new Set<string>();
  for (let o: object | null = session; o && o !== Object.prototype; o = Object.getPrototypeOf(o) as object | null)
    for (const name of Object.getOwnPropertyNames(o))
      if (name !== "constructor" && name !== "then" && typeof (session as Record<string, unknown>)[name] === "function") names.add(name);
  return [...names];
}

type Message =
  | { kind: "open"; credentials: WireCredentials; node?: string }
  | { kind: "close"; sessionId: string }
  | { kind: "ping"; sessionId: string }
  | { kind: "quotes"; sessionId: string; on: boolean; symbols: readonly string[] | null }
  | { kind: "call"; sessionId: string; method: string; args: unknown[] };

/** One request to the node running the server; its refusal as the platform's own error, a missing answer as a lost link. */
async function request(link: NodeLink, subject: string, message: Message, timeoutMs: number, lost: "closed" | "unreachable"): Promise<Answer> {
  let answer: Answer;
  try {
    answer = (await link.request(subject, message, timeoutMs)) as Answer;
  } catch {
    throw new LinkError(lost);
  }
  if ("native" in answer) throw new NativeError(answer.native);
  if ("link" in answer) throw new LinkError(answer.link);
  return answer;
}
