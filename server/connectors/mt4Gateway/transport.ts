/**
 * The MT4 manager gateway (docs/mt4-gateway.md) as a WireTransport: HTTPS trusting only the
 * configured CA, checked against the connection-target policy (server/connectors/transport/client.ts),
 * one connection for requests and one for the pumping stream. The session itself (a manager login
 * that yields a session token, the stream as chunked NDJSON, a ping every ~20 s, MT4's units
 * converted at the edge) is session.ts. A lost connection or an expired session ends the
 * session; the WireLink reconnects with backoff and a fresh login, and catches up from the last
 * sequence.
 */
import type { Clock } from "../clock.ts";
import { connectorErrors } from "../errors.ts";
import type { Mt4Event, Mt4Native } from "../mt4/native.ts";
import type { TargetPolicy } from "../target.ts";
import { guardedClients, httpsUrl } from "../transport/client.ts";
import { handshaken } from "../transport/requests.ts";
import type { WireCredentials, WireHandlers, WireSession, WireTransport } from "../wire/wire.ts";
import { Mt4BalanceOnce } from "./money.ts";
import { Mt4PendingOnce } from "./pendingOnce.ts";
import { Mt4GatewaySession } from "./session.ts";

export interface Mt4GatewayTransportOptions {
  /** `https://host:port` of the gateway. */
  url: string;
  /** PEM of the CA that signed the gateway's certificate; the system's CAs when absent. Never "any certificate". */
  ca?: string;
  clock: Clock;
  /** Which internal addresses may be reached (server/connectors/target.ts); checked before every connection. */
  targets?: TargetPolicy;
  /** A ping every ~20 s keeps the session (the gateway closes silent request connections after 180 s). */
  pingIntervalMs?: number;
}

export class Mt4GatewayTransport implements WireTransport<Mt4Native> {
  /** The server's offset from UTC, daylight time included, read at each login and ping (CfgRequestCommon); the codec reads it. */
  timeZoneOffsetMinutes = 0;
  /** Money operations run once per operation id, across sessions. */
  readonly money = new Mt4BalanceOnce();
  /** Changes and deletes of pending orders recognised from the order's state and history, across sessions. */
  readonly pendingOnce = new Mt4PendingOnce();
  private current: Mt4GatewaySession | null = null;

  constructor(readonly options: Mt4GatewayTransportOptions) {}

  async open(credentials: WireCredentials, handlers: WireHandlers<Mt4Event>): Promise<WireSession<Mt4Native>> {
    const url = httpsUrl(this.options.url, "The MT4 gateway is served over HTTPS only: the address must start with https://.");
    if (!/^\d{1,15}$/.test(credentials.login)) throw connectorErrors.invalidRequest("An MT4 manager login is a number.");
    const client = await guardedClients(url, this.options);
    this.current = await handshaken(new Mt4GatewaySession(this, client(), client(), handlers), credentials);
    return this.current;
  }

  /** Tests: waits for the open session's requests, then until the stream has delivered what the gateway holds. */
  async sync(options: { waitForRequests: boolean }): Promise<void> {
    await this.current?.sync(options.waitForRequests);
  }
}
