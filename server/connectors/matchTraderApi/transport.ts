/**
 * The Match-Trader Broker API connector: a WireTransport that opens a session with the token
 * (checked on `GET /v1/offers`, which also gives the `systemUuid`), the manual payment gateway,
 * and the gRPC feed; then the same WireConnector and codec as every other platform. A lost feed
 * makes the connector `reconnecting`; the ConnectionManager reconnects with backoff and the feed
 * resumes from the last sequence applied, repeats dropped.
 */
import * as grpc from "@grpc/grpc-js";
import { systemClock, type Clock, type TimerHandle } from "../clock.ts";
import type { TradePlatformConnector } from "../connector.ts";
import { matchTraderCodec } from "../matchTrader/codec.ts";
import type { MatchTraderNative, MtEvent, MtError } from "../matchTrader/native.ts";
import { LinkError, NativeError, type WireCredentials, type WireHandlers, type WireTransport } from "../wire/wire.ts";
import { WireConnector } from "../wire/wireConnector.ts";
import { messageFromPb, TradingFeedService, type FeedBatch } from "./feed.ts";
import { RateLimiter } from "./rateLimiter.ts";
import { RestClient } from "./rest.ts";
import { cleanEvents, ExactlyOnce, MatchTraderApiSession } from "./session.ts";

export const MATCH_TRADER_REQUESTS_PER_MINUTE = 500;
/** The vendor drops a feed stream after 15 minutes without data; its docs ping every 50 s. */
export const FEED_PING_MS = 50_000;

export interface MatchTraderApiOptions {
  /** The Broker API's REST base, e.g. https://broker-api.example.com */
  apiUrl: string;
  /** host:port of the gRPC feed; the REST host on port 443 (or the REST port) by default. */
  grpcAddress?: string;
  /** TLS for the gRPC feed; on when the REST URL is https. */
  grpcTls?: boolean;
  /** Trusted CA certificates (PEM) for servers with a private CA. */
  ca?: string;
  clock?: Clock;
  requestsPerMinute?: number;
}

/** What the connector has under way (tests wait on it). */
export interface MatchTraderApiCounters {
  inFlight: number;
  openStreams: number;
  receivedSequence: number;
}

const credentialsRefused: MtError = {
  status: 401,
  errorCode: "UNAUTHORIZED",
  message: "The trading server refused the API key: it is wrong, expired or revoked. Check it in the broker's Match-Trader admin.",
};

function defaultGrpcAddress(apiUrl: string): string {
  const url = new URL(apiUrl);
  return `${url.hostname}:${url.port || (url.protocol === "https:" ? "443" : "80")}`;
}

export class MatchTraderApiTransport implements WireTransport<MatchTraderNative> {
  readonly counters: MatchTraderApiCounters = { inFlight: 0, openStreams: 0, receivedSequence: 0 };
  private readonly clock: Clock;
  private readonly limiter: RateLimiter;
  private readonly exactlyOnce = new ExactlyOnce();
  private readonly positions = new Map<string, { login: string; instrument: string }>();

  constructor(private readonly options: MatchTraderApiOptions) {
    this.clock = options.clock ?? systemClock;
    this.limiter = new RateLimiter(options.requestsPerMinute ?? MATCH_TRADER_REQUESTS_PER_MINUTE, 60_000, this.clock);
  }

  async open(credentials: WireCredentials, handlers: WireHandlers<MtEvent[]>): Promise<MatchTraderApiSession> {
    const token = credentials.password;
    const rest = new RestClient({
      baseUrl: this.options.apiUrl,
      token,
      clock: this.clock,
      limiter: this.limiter,
      counters: this.counters,
      ca: this.options.ca,
    });
    let client: grpc.Client | null = null;
    try {
      const offers = await rest.call<{ system?: { uuid?: string } }[]>("GET", "/v1/offers").catch((error: unknown) => {
        throw error instanceof LinkError ? new LinkError("unreachable") : error;
      });
      const systemUuid = Array.isArray(offers.body) ? offers.body.find((o) => o.system?.uuid)?.system?.uuid : undefined;
      if (!systemUuid)
        throw new NativeError<MtError>({
          status: 404,
          errorCode: "NOT_FOUND",
          message: "The trading server lists no offers, so Toolbox cannot tell its system.",
        });
      const gateways = await rest.call<{ uuid: string; manual?: boolean }[]>("GET", "/v1/payment-gateways");
      const gatewayUuid = (gateways.body.find((g) => g.manual) ?? gateways.body[0])?.uuid ?? "";

      const tls = this.options.grpcTls ?? new URL(this.options.apiUrl).protocol === "https:";
      const channel = tls ? grpc.credentials.createSsl(this.options.ca ? Buffer.from(this.options.ca) : undefined) : grpc.credentials.createInsecure();
      const feedClient = new TradingFeedService(this.options.grpcAddress ?? defaultGrpcAddress(this.options.apiUrl), channel);
      client = feedClient;
      const metadata = () => {
        const m = new grpc.Metadata();
        m.set("authorization", `Bearer ${token}`);
        return m;
      };
      const counters = this.counters;
      const feed = {
        since: (fromSequence: number, limit: number) =>
          new Promise<FeedBatch>((resolve, reject) => {
            counters.inFlight++;
            (
              feedClient as unknown as { getTradingFeedSince: (req: object, md: grpc.Metadata, cb: grpc.requestCallback<Record<string, unknown>>) => void }
            ).getTradingFeedSince({ systemUuid, fromSequence, limit }, metadata(), (error, answer) => {
              counters.inFlight--;
              if (error || !answer) return reject(new LinkError("closed"));
              const messages = Array.isArray(answer.messages) ? (answer.messages as Record<string, unknown>[]) : [];
              resolve({ messages: messages.map(messageFromPb), complete: answer.complete === true, latestSequence: Number(answer.latestSequence ?? 0) });
            });
          }),
      };

      const stream = (
        feedClient as unknown as { getTradingFeedStream: (req: object, md: grpc.Metadata) => grpc.ClientReadableStream<Record<string, unknown>> }
      ).getTradingFeedStream({ systemUuid }, metadata());
      counters.openStreams++;
      let ended = false;
      let session: MatchTraderApiSession | null = null;
      const openedAtSequence = await new Promise<number>((resolve, reject) => {
        const end = (error: grpc.ServiceError | null) => {
          if (ended) return;
          ended = true;
          counters.openStreams--;
          if (!session) {
            reject(
              error?.code === grpc.status.UNAUTHENTICATED || error?.code === grpc.status.PERMISSION_DENIED
                ? new NativeError(credentialsRefused)
                : new LinkError("unreachable"),
            );
            return;
          }
          session.close();
          handlers.onClose();
        };
        stream.on("data", (raw: Record<string, unknown>) => {
          let message;
          try {
            message = messageFromPb(raw);
          } catch {
            // A message this client cannot read: treat the link as broken, the next session catches up.
            stream.cancel();
            return;
          }
          counters.receivedSequence = Math.max(counters.receivedSequence, message.sequence);
          if (!session) {
            resolve(message.sequence);
            return;
          }
          if (message.events.length === 0) return; // a heartbeat
          handlers.onPacket({ sequence: message.sequence, event: cleanEvents(message.events) });
        });
        stream.on("error", (error: grpc.ServiceError) => end(error));
        stream.on("end", () => end(null));
      });
      let ping: TimerHandle | null = null;
      const schedulePing = () => {
        ping = this.clock.setTimeout(() => {
          if (ended) return;
          counters.inFlight++;
          (feedClient as unknown as { ping: (req: object, md: grpc.Metadata, cb: () => void) => void }).ping({ systemUuid }, metadata(), () => {
            counters.inFlight--;
          });
          schedulePing();
        }, FEED_PING_MS);
      };
      schedulePing();
      session = new MatchTraderApiSession({
        rest,
        feed,
        stream,
        openedAtSequence,
        systemUuid,
        gatewayUuid,
        exactlyOnce: this.exactlyOnce,
        positions: this.positions,
        onClose: () => {
          if (ping) this.clock.clearTimeout(ping);
          rest.close();
          feedClient.close();
        },
      });
      return session;
    } catch (error) {
      rest.close();
      client?.close();
      throw error;
    }
  }
}

export interface MatchTraderApiConnectorOptions extends MatchTraderApiOptions {
  /** The API token, from the broker's Match-Trader admin. */
  token: string;
  requestTimeoutMs?: number;
  connectTimeoutMs?: number;
}

export function createMatchTraderApiConnector(options: MatchTraderApiConnectorOptions): TradePlatformConnector & { transport: MatchTraderApiTransport } {
  const transport = new MatchTraderApiTransport(options);
  const connector = new WireConnector({
    codec: matchTraderCodec(),
    transport,
    // The Broker API knows only the token; the login is a label.
    credentials: { login: "api", password: options.token },
    timeZoneOffsetMinutes: 0,
    clock: options.clock,
    requestTimeoutMs: options.requestTimeoutMs,
    connectTimeoutMs: options.connectTimeoutMs,
  });
  return Object.assign(connector, { transport });
}
