/**
 * The Match-Trader Broker API connector: a WireTransport that checks both targets (REST and the
 * feed, server/connectors/target.ts) before any packet, then opens a session over HTTPS with the
 * token (checked on `GET /v1/offers`, which also gives the `systemUuid`), the manual payment
 * gateway, and the gRPC feed over TLS (the configured CA, or the system's); then the same
 * WireConnector and codec as every other platform. A lost feed makes the connector
 * `reconnecting`; the ConnectionManager reconnects with backoff and the feed resumes from the
 * last sequence applied, repeats dropped.
 */
import * as grpc from "@grpc/grpc-js";
import { systemClock, type Clock, type TimerHandle } from "../clock.ts";
import type { TradePlatformConnector } from "../connector.ts";
import { connectorErrors } from "../errors.ts";
import { matchTraderCodec } from "../matchTrader/codec.ts";
import type { MatchTraderNative, MtEvent, MtError } from "../matchTrader/native.ts";
import { LinkError, NativeError, type WireCredentials, type WireHandlers, type WireTransport } from "../wire/wire.ts";
import { WireConnector } from "../wire/wireConnector.ts";
import { messageFromPb, TradingFeedService, type FeedBatch } from "./feed.ts";
import { RateLimiter } from "./rateLimiter.ts";
import { checkedAddress, NO_INTERNAL_TARGETS, targetLookup, type TargetPolicy } from "../target.ts";
import { hostPort } from "../transport/address.ts";
import { httpsUrl, untrustedCertificate } from "../transport/client.ts";
import { HTTPS_ONLY, RestClient } from "./rest.ts";
import { cleanEvents, ExactlyOnce } from "./exactlyOnce.ts";
import { MemoryOrderJournal, type OrderJournal } from "./orderJournal.ts";
import { QuotationsService, streamQuotations } from "./quotes.ts";
import { MatchTraderApiSession } from "./session.ts";

export const MATCH_TRADER_REQUESTS_PER_MINUTE = 500;
/** The vendor drops a feed stream after 15 minutes without data; its docs ping every 50 s. */
export const FEED_PING_MS = 50_000;

export interface MatchTraderApiOptions {
  /** The Broker API's REST base, e.g. https://broker-api.example.com */
  apiUrl: string;
  /** host:port of the gRPC feed (TLS); the REST host and port by default. */
  grpcAddress?: string;
  /** Trusted CA certificates (PEM) for servers with a private CA, for REST and the feed; the system's CAs when absent. */
  ca?: string;
  /**
   * Which internal addresses may be reached (server/connectors/target.ts); both the REST URL and
   * the feed's address are checked before any packet. None by default.
   */
  targets?: TargetPolicy;
  clock?: Clock;
  requestsPerMinute?: number;
  /** How many times a 429 is waited out (Retry-After) before failing as serverBusy; 3 by default. */
  retriesOn429?: number;
  /**
   * Where orders are written down before they are sent (orderJournal.ts): one in memory by
   * default; the host's durable one makes orders exactly once across a restart.
   */
  orderJournal?: OrderJournal;
  /** The quotations stream's `throttlingMs` (at most one quote per instrument that often); 0, every tick, by default. */
  quotesThrottlingMs?: number;
  /** The group whose prices the quotations stream asks for (the vendor adds its markup); the first offer's group when absent. */
  quotesGroup?: string;
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

function defaultGrpcAddress(apiUrl: URL): string {
  return `${apiUrl.hostname}:${apiUrl.port || "443"}`;
}

/** Where the feed connects and the name its certificate must carry: a checked address, so the name cannot resolve elsewhere later. */
async function feedTarget(grpcAddress: string, targets: TargetPolicy): Promise<{ target: string; options: grpc.ChannelOptions }> {
  let url: URL;
  try {
    url = new URL(`https://${grpcAddress}`);
  } catch {
    throw connectorErrors.invalidRequest("The gRPC feed address must be host:port.");
  }
  const address = await checkedAddress(url, targets);
  const port = url.port || "443";
  const name = url.hostname.replace(/^\[|\]$/g, "");
  if (address === null || address === name) return { target: `${url.hostname}:${port}`, options: {} };
  return {
    target: hostPort(address, port),
    options: { "grpc.ssl_target_name_override": name, "grpc.default_authority": `${url.hostname}:${port}` },
  };
}

/** A feed failure before the first message, in a dealer's words. */
function feedFailure(error: grpc.ServiceError | null): Error {
  if (error?.code === grpc.status.UNAUTHENTICATED || error?.code === grpc.status.PERMISSION_DENIED) return new NativeError(credentialsRefused);
  if (error && /certificate|self[- ]signed|CERT_/i.test(`${error.details} ${error.message}`)) return untrustedCertificate();
  return new LinkError("unreachable");
}

export class MatchTraderApiTransport implements WireTransport<MatchTraderNative> {
  readonly counters: MatchTraderApiCounters = { inFlight: 0, openStreams: 0, receivedSequence: 0 };
  private readonly clock: Clock;
  private readonly limiter: RateLimiter;
  private readonly exactlyOnce = new ExactlyOnce();
  private readonly positions = new Map<string, { login: string; instrument: string }>();
  private readonly journal: OrderJournal;
  private readonly accountQueues = new Map<string, Promise<unknown>>();

  constructor(private readonly options: MatchTraderApiOptions) {
    this.clock = options.clock ?? systemClock;
    this.journal = options.orderJournal ?? new MemoryOrderJournal();
    this.limiter = new RateLimiter(options.requestsPerMinute ?? MATCH_TRADER_REQUESTS_PER_MINUTE, 60_000, this.clock);
  }

  async open(credentials: WireCredentials, handlers: WireHandlers<MtEvent[]>): Promise<MatchTraderApiSession> {
    const token = credentials.password;
    const apiUrl = httpsUrl(this.options.apiUrl, HTTPS_ONLY);
    // Both targets are checked before a packet goes to either.
    const targets = this.options.targets ?? NO_INTERNAL_TARGETS;
    await checkedAddress(apiUrl, targets);
    const feedAt = await feedTarget(this.options.grpcAddress ?? defaultGrpcAddress(apiUrl), targets);
    const rest = new RestClient({
      baseUrl: this.options.apiUrl,
      token,
      clock: this.clock,
      limiter: this.limiter,
      counters: this.counters,
      ca: this.options.ca,
      lookup: targetLookup(targets),
      retriesOn429: this.options.retriesOn429,
    });
    let client: grpc.Client | null = null;
    try {
      const offers = await rest.call<{ system?: { uuid?: string }; groupName?: string }[]>("GET", "/v1/offers").catch((error: unknown) => {
        throw error instanceof LinkError ? new LinkError("unreachable") : error;
      });
      const offer = Array.isArray(offers.body) ? offers.body.find((o) => o.system?.uuid) : undefined;
      const systemUuid = offer?.system?.uuid;
      if (!systemUuid)
        throw new NativeError<MtError>({
          status: 404,
          errorCode: "NOT_FOUND",
          message: "The trading server lists no offers, so Toolbox cannot tell its system.",
        });
      const gateways = await rest.call<{ uuid: string; manual?: boolean }[]>("GET", "/v1/payment-gateways");
      const gatewayUuid = (gateways.body.find((g) => g.manual) ?? gateways.body[0])?.uuid ?? "";

      const channel = grpc.credentials.createSsl(this.options.ca ? Buffer.from(this.options.ca) : null);
      const feedClient = new TradingFeedService(feedAt.target, channel, feedAt.options);
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
            reject(feedFailure(error));
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
        journal: this.journal,
        accountQueues: this.accountQueues,
        onClose: () => {
          if (ping) this.clock.clearTimeout(ping);
          rest.close();
          feedClient.close();
        },
        // The vendor streams a group's prices: the platform's setting, else the first offer's group (docs/quotes-monitor.md).
        quotes: (onTicks, symbols): (() => void) =>
          streamQuotations(
            {
              client: new QuotationsService(feedAt.target, channel, { ...feedAt.options, channelOverride: feedClient.getChannel() }),
              metadata,
              systemUuid,
              group: this.options.quotesGroup ?? offer?.groupName ?? "",
              instruments: async (): Promise<string[]> => (symbols ? [...symbols] : (await opened.listSymbols()).map((s) => s.symbol)),
              throttlingMs: this.options.quotesThrottlingMs,
              clock: this.clock,
              alive: () => !ended,
            },
            onTicks,
          ),
      });
      const opened: MatchTraderApiSession = session;
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
    // The Broker API has no call that changes a pending order (decision 0077-match-trader-pending-order-changes).
    capabilities: { changePendingOrder: false, pendingOrderExpiration: false },
    // The Broker API knows only the token; the login is a label.
    credentials: { login: "api", password: options.token },
    timeZoneOffsetMinutes: 0,
    clock: options.clock,
    requestTimeoutMs: options.requestTimeoutMs,
    connectTimeoutMs: options.connectTimeoutMs,
  });
  return Object.assign(connector, { transport });
}
