/**
 * The MT5 Web API as a WireTransport: one HTTPS connection per session (the vendor ties the
 * session to the connection that authenticated it), trusting only the configured CA, checked
 * against the connection-target policy (server/connectors/transport/client.ts). The session
 * itself (the MD5 challenge both ways, a ping every ~20 s, the live stream by polling the
 * server's numbered event feed) is session.ts. A lost connection ends the session; the WireLink
 * reconnects with a fresh handshake.
 */
import type { Clock } from "../clock.ts";
import type { Mt5Event, Mt5Native } from "../mt5/native.ts";
import type { TargetPolicy } from "../target.ts";
import { guardedClients, httpsUrl } from "../transport/client.ts";
import { handshaken } from "../transport/requests.ts";
import type { WireCredentials, WireHandlers, WireSession, WireTransport } from "../wire/wire.ts";
import { BalanceOnce } from "./money.ts";
import { OrdersOnce } from "./orders.ts";
import { Mt5WebApiSession } from "./session.ts";
import type { VendorEventPoller } from "./vendorFeed.ts";

export interface Mt5WebApiTransportOptions {
  /** `https://host:port` of the access server. */
  url: string;
  /** PEM of the CA that signed the server's certificate; the system's CAs when absent. Never "any certificate". */
  ca?: string;
  clock: Clock;
  /**
   * Which internal addresses may be reached (server/connectors/target.ts); checked before every
   * connection. None by default: loopback, private, link-local and metadata addresses are refused.
   */
  targets?: TargetPolicy;
  /** The vendor drops a connection after 180 s of silence; a ping every ~20 s keeps it. */
  pingIntervalMs?: number;
  /** How often the event feed is read for the live stream. */
  pollIntervalMs?: number;
  /** How often `/api/tick/last` is polled for a live quote stream (quotes.ts); 500 ms by default. */
  quotePollIntervalMs?: number;
  /** The Web API client build sent in the handshake (484 is the vendor's minimum). */
  version?: number;
  agent?: string;
}

export class Mt5WebApiTransport implements WireTransport<Mt5Native> {
  /** The server's offset from UTC, learnt at each handshake (`/api/time/get`); the codec reads it. */
  timeZoneOffsetMinutes: number;
  /** Money operations run once per operation id, across sessions. */
  readonly money = new BalanceOnce();
  /** Orders run once per request id, across sessions. */
  readonly orders = new OrdersOnce();
  /**
   * Without Toolbox's plugin the stream is polled from the vendor's commands by one poller for the
   * connector's life, which numbers its events itself: the last number given, and the last one
   * skipped to tell a gap (a change polling could not follow). Nothing before the gap can be read again.
   */
  vendor: VendorEventPoller | null = null;
  vendorSequence = 0;
  vendorGapAt = 0;
  private current: Mt5WebApiSession | null = null;

  constructor(
    readonly options: Mt5WebApiTransportOptions,
    initialOffsetMinutes = 0,
  ) {
    this.timeZoneOffsetMinutes = initialOffsetMinutes;
  }

  async open(credentials: WireCredentials, handlers: WireHandlers<Mt5Event>): Promise<WireSession<Mt5Native>> {
    const url = httpsUrl(this.options.url, "The MT5 Web API is served over HTTPS only: the address must start with https://.");
    const client = await guardedClients(url, this.options);
    this.current = await handshaken(new Mt5WebApiSession(this, client(), handlers), credentials);
    return this.current;
  }

  /** Tests: waits for the open session's requests, then reads the event feed once. */
  async sync(options: { waitForRequests: boolean }): Promise<void> {
    await this.current?.sync(options.waitForRequests);
  }
}
