/**
 * A local Match-Trader Broker API server: REST over HTTPS and the live feed over gRPC with TLS
 * (one certificate for both; a self-signed one of its own unless given), backed by the simulation engine (server/connectors/simulated). Tests and `npm run simulator`
 * start it; Toolbox's matchTraderApi connector talks to it as to a broker's real server. Faults
 * on demand: dropped connections, refused connections, slow answers, rejections, the 500
 * requests/minute limit answered with 429, an answer lost after the operation was applied, and
 * duplicate feed messages. See docs/connectors.md and decision 0056.
 *
 * One idea, at length: the vendor's REST gate (token, rate limit, faults) and its gRPC feed; the
 * routes are rest.ts, the HTTPS plumbing server/protocolServers/common/.
 */
import * as grpc from "@grpc/grpc-js";
import { randomBytes } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { sleep, type Clock, type TimerHandle } from "../../connectors/clock.ts";
import { matchTraderCodec } from "../../connectors/matchTrader/codec.ts";
import type { MatchTraderNative, MtError } from "../../connectors/matchTrader/native.ts";
import { messageToPb, TradingFeedService, type FeedMessage } from "../../connectors/matchTraderApi/feed.ts";
import { DEFAULT_MANAGER, SimulatedServer, type SimulatedServerOptions } from "../../connectors/simulated/server.ts";
import { hostPort } from "../../connectors/transport/address.ts";
import { NativeError, type NativePacket, type WireSession } from "../../connectors/wire/wire.ts";
import { selfSignedCertificate } from "../certificates.ts";
import { BodyTooLarge, HttpsEndpoint, readBody as readText, sendJson } from "../common/https.ts";
import { serveQuotations, type QuotationsAsked } from "./quotations.ts";
import { badRequest, route, SYSTEM_UUID } from "./rest.ts";

export const MATCH_TRADER_RATE_LIMIT = 500;
/** The calls that trade: what the order faults (dropNextOrderAnswer, slowNextOrder) apply to. */
const TRADING_PATH = /^\/v1\/trading-accounts\/(positions|pending-order)\//;
const MINUTE = 60_000;
/** The vendor drops a stream after 15 minutes with no data. */
export const FEED_IDLE_MS = 15 * MINUTE;

export interface MatchTraderServerOptions {
  /** An engine to serve; without it one is made from `simulated` and stopped on close. */
  server?: SimulatedServer;
  simulated?: Omit<SimulatedServerOptions, "platform">;
  /** The API token the server accepts; random by default. */
  token?: string;
  host?: string;
  /** REST port; 0 (any free port) by default. */
  port?: number;
  grpcPort?: number;
  /** Requests per minute per token before 429; 500 as the vendor documents. */
  rateLimitPerMinute?: number;
  /** The token of the control API (`POST /_control/faults`); random by default. */
  controlToken?: string;
  /**
   * PEM key and certificate both REST (HTTPS) and the gRPC feed (TLS) present, and the CA a client
   * trusts (the certificate itself when absent). A self-signed one for `host` by default.
   */
  tls?: { key: string; cert: string; ca?: string };
}

export interface MatchTraderFaults {
  /** Ends every feed stream and closes every REST connection now. */
  dropConnections(): void;
  /** New connections and calls are refused (the socket closes at once) until restore(). */
  refuseConnections(on?: boolean): void;
  /** Every REST answer waits this long on the server's clock, after the request was applied. */
  slowAnswers(delayMs: number): void;
  /** The next `count` operations that change something are rejected by the platform. */
  rejectNext(count: number): void;
  /** Every feed message is sent twice. */
  duplicateStream(on: boolean): void;
  /** The next request to `path` is applied, then its connection closes without an answer. */
  dropAnswerOf(path: string): void;
  /** The next trading call (open, edit, close, a pending order) is applied, then its connection closes without an answer. */
  dropNextOrderAnswer(): void;
  /** The next trading call is applied at once, then its answer waits this long on the server's clock. */
  slowNextOrder(delayMs: number): void;
  rateLimit(perMinute: number): void;
  /** Every request is refused with 403, as when the caller's IP is not on the token's whitelist. */
  forbid(on: boolean): void;
  restore(): void;
}

/** What the server has under way, so a test can wait until everything due has happened. */
export interface MatchTraderServerStats {
  /** REST requests whose answer waits on the clock (slowAnswers). */
  readonly parked: number;
  readonly liveStreams: number;
  /** The highest feed sequence written to a live stream. */
  readonly writtenSequence: number;
  readonly requests: number;
  /** Requests answered 429. */
  readonly rateLimited: number;
  /** Answers dropped by dropAnswerOf after the request was applied. */
  readonly droppedAnswers: number;
}

export interface MatchTraderServerHandle {
  /** `https://host:port` of REST. */
  url: string;
  /** host:port of the gRPC feed (TLS, the same certificate). */
  grpcAddress: string;
  /** The PEM a client trusts as its CA (the connection's caCertificate). */
  ca: string;
  token: string;
  /** For `POST /_control/faults` from another process, e.g. `{"refuseConnections": true}`. */
  controlToken: string;
  systemUuid: string;
  simulated: SimulatedServer;
  faults: MatchTraderFaults;
  stats: MatchTraderServerStats;
  /** The quotations streams asked for, the last 100 as they arrived (group, instruments, throttling). */
  quotationRequests: readonly QuotationsAsked[];
  close(): Promise<void>;
}

interface Subscriber {
  call: grpc.ServerWritableStream<unknown, unknown>;
  token: string;
  idle: TimerHandle | null;
}

export async function startMatchTraderServer(options: MatchTraderServerOptions = {}): Promise<MatchTraderServerHandle> {
  const simulated = options.server ?? new SimulatedServer({ ...options.simulated, platform: "MatchTrader" });
  const ownsEngine = !options.server;
  if (ownsEngine) simulated.start();
  const clock: Clock = simulated.clock;
  const host = options.host ?? "127.0.0.1";
  const tls =
    options.tls ?? (await selfSignedCertificate(["localhost", "127.0.0.1", "::1", ...(["localhost", "127.0.0.1", "::1"].includes(host) ? [] : [host])]));
  const token = options.token ?? randomBytes(24).toString("base64url");
  const controlToken = options.controlToken ?? randomBytes(24).toString("base64url");
  const codec = matchTraderCodec();
  const transport = simulated.transport(codec);

  const state = {
    delayMs: 0,
    refusing: false,
    duplicate: false,
    rateLimit: options.rateLimitPerMinute ?? MATCH_TRADER_RATE_LIMIT,
    dropAnswers: [] as string[],
    dropNextOrder: false,
    slowNextOrderMs: 0,
    forbidden: false,
    parked: 0,
    requests: 0,
    rateLimited: 0,
    droppedAnswers: 0,
    writtenSequence: 0,
    closed: false,
  };
  const subscribers = new Set<Subscriber>();
  const sockets = new Set<Socket>();
  const recent: number[] = [];

  // The engine's session: one manager connection behind every REST call and feed stream.
  let session: WireSession<MatchTraderNative>;
  const openSession = async () => {
    session = await transport.open(DEFAULT_MANAGER, {
      onPacket: (packet) => broadcast(packet),
      onClose: () => {
        if (!state.closed) void openSession();
      },
    });
  };
  await openSession();

  /** Writes to one stream and restarts its idle timer: 15 minutes with nothing written ends it. */
  const write = (subscriber: Subscriber, message: object) => {
    subscriber.call.write(message);
    if (subscriber.idle) clock.clearTimeout(subscriber.idle);
    subscriber.idle = clock.setTimeout(() => endStream(subscriber, grpc.status.DEADLINE_EXCEEDED, "No data for 15 minutes"), FEED_IDLE_MS);
  };

  const endStream = (subscriber: Subscriber, code: grpc.status, details: string) => {
    if (!subscribers.delete(subscriber)) return;
    if (subscriber.idle) clock.clearTimeout(subscriber.idle);
    subscriber.call.emit("error", Object.assign(new Error(details), { code, details, metadata: new grpc.Metadata() }));
  };

  let broadcastSequence = 0;
  const broadcast = (packet: NativePacket<MatchTraderNative["event"]>) => {
    const message = messageToPb({ sequence: packet.sequence, events: packet.event } satisfies FeedMessage);
    broadcastSequence = Math.max(broadcastSequence, packet.sequence);
    for (const subscriber of subscribers) {
      write(subscriber, message);
      if (state.duplicate) write(subscriber, message);
    }
    if (subscribers.size > 0) state.writtenSequence = Math.max(state.writtenSequence, packet.sequence);
  };

  const authorized = (header: string | undefined) => header === token || header === `Bearer ${token}`;

  // ── REST ──────────────────────────────────────────────────────────────────────────────────
  const errorBody = (error: MtError, path: string) => ({
    status: error.status,
    title: error.errorCode,
    detail: error.message,
    path,
    timestamp: new Date(clock.now()).toISOString(),
  });

  const send = (res: ServerResponse, status: number, body?: unknown, headers: Record<string, string> = {}) =>
    sendJson(res, status, body === undefined ? undefined : JSON.stringify(body), headers);

  const readBody = (req: IncomingMessage) =>
    readText(req, 1_000_000).catch((error: unknown) => {
      throw error instanceof BodyTooLarge ? badRequest("The request body is too large.") : error;
    });

  const control = async (req: IncomingMessage, res: ServerResponse) => {
    if (req.headers.authorization !== `Bearer ${controlToken}`) {
      send(res, 401, errorBody({ status: 401, errorCode: "UNAUTHORIZED", message: "The control token is missing or wrong." }, "/_control/faults"));
      return;
    }
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(await readBody(req)) as Record<string, unknown>;
    } catch {
      send(res, 400, errorBody({ status: 400, errorCode: "INVALID_REQUEST", message: "The body must be a JSON object of faults." }, "/_control/faults"));
      return;
    }
    const number = (v: unknown) => (typeof v === "number" && Number.isFinite(v) && v >= 0 ? v : null);
    // Applied once the answer is out: dropping connections must not drop this one first.
    const actions: (() => void)[] = [];
    for (const [name, value] of Object.entries(body ?? {})) {
      const n = number(value);
      if (name === "restore" && value === true) actions.push(() => faults.restore());
      else if (name === "dropConnections" && value === true) actions.push(() => faults.dropConnections());
      else if (name === "refuseConnections" && typeof value === "boolean") actions.push(() => faults.refuseConnections(value));
      else if (name === "duplicateStream" && typeof value === "boolean") actions.push(() => faults.duplicateStream(value));
      else if (name === "forbid" && typeof value === "boolean") actions.push(() => faults.forbid(value));
      else if (name === "dropAnswerOf" && typeof value === "string") actions.push(() => faults.dropAnswerOf(value));
      else if (name === "slowAnswers" && n !== null) actions.push(() => faults.slowAnswers(n));
      else if (name === "dropNextOrderAnswer" && value === true) actions.push(() => faults.dropNextOrderAnswer());
      else if (name === "slowNextOrder" && n !== null) actions.push(() => faults.slowNextOrder(n));
      else if (name === "rejectNext" && n !== null) actions.push(() => faults.rejectNext(Math.floor(n)));
      else if (name === "rateLimit" && n !== null) actions.push(() => faults.rateLimit(Math.floor(n)));
      else {
        send(res, 400, errorBody({ status: 400, errorCode: "INVALID_REQUEST", message: `Unknown fault or value: ${name}.` }, "/_control/faults"));
        return;
      }
    }
    res.on("finish", () => {
      for (const action of actions) action();
    });
    send(res, 200, { parked: state.parked, liveStreams: subscribers.size, requests: state.requests, rateLimited: state.rateLimited });
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    if (req.method === "POST" && req.url === "/_control/faults") return control(req, res);
    state.requests++;
    if (state.refusing) {
      req.socket.destroy();
      return;
    }
    const url = new URL(req.url ?? "/", "http://local");
    const path = url.pathname;
    if (!authorized(req.headers.authorization)) {
      send(res, 401, errorBody({ status: 401, errorCode: "UNAUTHORIZED", message: "The API token is missing, revoked or wrong." }, path));
      return;
    }
    if (state.forbidden) {
      send(res, 403, errorBody({ status: 403, errorCode: "FORBIDDEN", message: "This IP address is not allowed for the API token." }, path));
      return;
    }
    const now = clock.now();
    while (recent.length > 0 && recent[0]! <= now - MINUTE) recent.shift();
    if (recent.length >= state.rateLimit) {
      state.rateLimited++;
      const oldest = recent[0] ?? now;
      const retryAfter = Math.max(1, Math.ceil((oldest + MINUTE - now) / 1000));
      send(res, 429, errorBody({ status: 429, errorCode: "TOO_MANY_REQUESTS", message: `More than ${state.rateLimit} requests in a minute.` }, path), {
        "retry-after": String(retryAfter),
      });
      return;
    }
    recent.push(now);
    let status: number;
    let body: unknown;
    try {
      const raw = req.method === "GET" ? "" : await readBody(req);
      let parsed: unknown = undefined;
      try {
        parsed = raw ? JSON.parse(raw) : undefined;
      } catch {
        throw badRequest("The request body is not valid JSON.");
      }
      const answer = await route(session, { method: req.method ?? "GET", path, query: url.searchParams, body: parsed }, simulated.engine);
      if (answer) ({ status, body } = answer);
      else
        ({ status, body } = {
          status: 404,
          body: errorBody({ status: 404, errorCode: "NOT_FOUND", message: `No such endpoint: ${req.method} ${path}.` }, path),
        });
    } catch (error) {
      if (!(error instanceof NativeError)) throw error;
      const native = error.native as MtError;
      status = native.status;
      body = errorBody(native, path);
    }
    const order = req.method === "POST" && TRADING_PATH.test(path);
    let delay = state.delayMs;
    if (order && state.slowNextOrderMs > 0) {
      delay = Math.max(delay, state.slowNextOrderMs);
      state.slowNextOrderMs = 0;
    }
    if (delay > 0) {
      state.parked++;
      try {
        await sleep(clock, delay);
      } finally {
        state.parked--;
      }
    }
    let drop = state.dropAnswers.indexOf(path);
    if (drop >= 0) state.dropAnswers.splice(drop, 1);
    if (order && state.dropNextOrder) {
      state.dropNextOrder = false;
      drop = 0;
    }
    if (drop >= 0 || state.refusing) {
      if (drop >= 0) state.droppedAnswers++;
      req.socket.destroy();
      return;
    }
    send(res, status, body);
  };

  const https = new HttpsEndpoint({
    name: "The Match-Trader server",
    tls,
    handle: (req, res) => {
      handle(req, res).catch((error: unknown) => {
        simulated.fault(error);
        if (!res.headersSent) send(res, 500, errorBody({ status: 500, errorCode: "INTERNAL_ERROR", message: "Internal server error." }, req.url ?? "/"));
      });
    },
    onConnection: (socket) => {
      sockets.add(socket);
      socket.on("close", () => sockets.delete(socket));
    },
  });
  const { url } = await https.listen(host, options.port ?? 0);

  // ── gRPC feed ─────────────────────────────────────────────────────────────────────────────
  const refuseCall = (metadata: grpc.Metadata): grpc.ServiceError | null => {
    if (state.refusing)
      return Object.assign(new Error("Server unavailable"), { code: grpc.status.UNAVAILABLE, details: "Server unavailable", metadata: new grpc.Metadata() });
    const auth = metadata.get("authorization")[0];
    if (!authorized(typeof auth === "string" ? auth : undefined))
      return Object.assign(new Error("Unauthenticated"), {
        code: grpc.status.UNAUTHENTICATED,
        details: "The API token is missing, revoked or wrong.",
        metadata: new grpc.Metadata(),
      });
    return null;
  };

  const grpcServer = new grpc.Server();
  grpcServer.addService(TradingFeedService.service, {
    getTradingFeedStream: (call: grpc.ServerWritableStream<{ systemUuid?: string }, unknown>) => {
      const refused = refuseCall(call.metadata);
      if (refused) {
        call.emit("error", refused);
        return;
      }
      const auth = call.metadata.get("authorization")[0];
      const subscriber: Subscriber = { call, token: typeof auth === "string" ? auth : "", idle: null };
      broadcastSequence = Math.max(broadcastSequence, simulated.engine.ctx.log.lastSequence);
      write(subscriber, { sequence: simulated.engine.ctx.log.lastSequence, events: [] });
      subscribers.add(subscriber);
      const remove = () => {
        subscribers.delete(subscriber);
        if (subscriber.idle) clock.clearTimeout(subscriber.idle);
      };
      call.on("cancelled", remove);
      call.on("close", remove);
      call.on("error", remove);
    },
    getTradingFeedSince: (call: grpc.ServerUnaryCall<{ fromSequence?: number; limit?: number }, unknown>, callback: grpc.sendUnaryData<unknown>) => {
      const refused = refuseCall(call.metadata);
      if (refused) return callback(refused);
      session.eventsSince(call.request.fromSequence ?? 0, Math.min(call.request.limit ?? 1000, 5000)).then(
        (batch) =>
          callback(null, {
            messages: batch.packets.map((p) => messageToPb({ sequence: p.sequence, events: p.event })),
            complete: batch.complete,
            latestSequence: batch.latestSequence,
          }),
        (error: unknown) =>
          callback(Object.assign(new Error("Feed unavailable"), { code: grpc.status.UNAVAILABLE, details: String(error), metadata: new grpc.Metadata() })),
      );
    },
    ping: (call: grpc.ServerUnaryCall<unknown, unknown>, callback: grpc.sendUnaryData<unknown>) => {
      const refused = refuseCall(call.metadata);
      if (refused) return callback(refused);
      const auth = call.metadata.get("authorization")[0];
      // A heartbeat on the caller's streams: no events, the last sequence already written to them.
      for (const subscriber of subscribers) if (subscriber.token === auth) write(subscriber, { sequence: broadcastSequence, events: [] });
      callback(null, { serverTime: new Date(clock.now()).toISOString() });
    },
  });
  const quotations = serveQuotations(grpcServer, { simulated, codec, clock, systemUuid: SYSTEM_UUID, idleMs: FEED_IDLE_MS, refuse: refuseCall });
  const grpcPort = await new Promise<number>((resolve, reject) =>
    grpcServer.bindAsync(
      hostPort(host, options.grpcPort ?? 0),
      grpc.ServerCredentials.createSsl(null, [{ private_key: Buffer.from(tls.key), cert_chain: Buffer.from(tls.cert) }], false),
      (error, port) => (error ? reject(error) : resolve(port)),
    ),
  );

  const dropStreams = () => {
    quotations.dropAll();
    for (const subscriber of [...subscribers]) endStream(subscriber, grpc.status.UNAVAILABLE, "Connection dropped");
  };

  const faults: MatchTraderFaults = {
    dropConnections() {
      dropStreams();
      for (const socket of sockets) socket.destroy();
    },
    refuseConnections(on = true) {
      state.refusing = on;
      if (on) faults.dropConnections();
    },
    slowAnswers(delayMs) {
      state.delayMs = delayMs;
    },
    rejectNext(count) {
      simulated.faults.rejectNext(count);
    },
    duplicateStream(on) {
      state.duplicate = on;
    },
    dropAnswerOf(path) {
      state.dropAnswers.push(path);
    },
    dropNextOrderAnswer() {
      state.dropNextOrder = true;
    },
    slowNextOrder(delayMs) {
      state.slowNextOrderMs = delayMs;
    },
    rateLimit(perMinute) {
      state.rateLimit = perMinute;
    },
    forbid(on) {
      state.forbidden = on;
    },
    restore() {
      state.delayMs = 0;
      state.refusing = false;
      state.duplicate = false;
      state.dropAnswers = [];
      state.dropNextOrder = false;
      state.slowNextOrderMs = 0;
      state.forbidden = false;
      state.rateLimit = options.rateLimitPerMinute ?? MATCH_TRADER_RATE_LIMIT;
      simulated.faults.restore();
    },
  };

  return {
    url,
    grpcAddress: hostPort(host, grpcPort),
    ca: tls.ca ?? tls.cert,
    token,
    controlToken,
    systemUuid: SYSTEM_UUID,
    simulated,
    faults,
    quotationRequests: quotations.requests,
    stats: {
      get parked() {
        return state.parked;
      },
      get liveStreams() {
        return subscribers.size;
      },
      get writtenSequence() {
        return state.writtenSequence;
      },
      get requests() {
        return state.requests;
      },
      get rateLimited() {
        return state.rateLimited;
      },
      get droppedAnswers() {
        return state.droppedAnswers;
      },
    },
    async close() {
      state.closed = true;
      dropStreams();
      grpcServer.forceShutdown();
      session.close();
      for (const socket of sockets) socket.destroy();
      await https.close();
      if (ownsEngine) simulated.stop();
    },
  };
}
