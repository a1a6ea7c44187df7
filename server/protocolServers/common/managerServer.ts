/**
 * What the MetaQuotes-style protocol servers (the MT5 Web API, the MT4 gateway) share: a simulated
 * engine of the matching platform behind HTTPS, one manager login, connections refused while the
 * engine refuses them, the vendor's idle drop, and the TLS connections it holds, to count and to
 * drop. Each server adds its own protocol by answering `handle`.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Socket } from "node:net";
import type { TLSSocket } from "node:tls";
import type { TradePlatformType } from "../../../core/trading/index.ts";
import { DEFAULT_MANAGER, type SimulatedServer } from "../../connectors/simulated/server.ts";
import type { WireCredentials } from "../../connectors/wire/wire.ts";
import { HttpsEndpoint, type Listening, type ServerTls } from "./https.ts";

export interface ManagerServerOptions {
  /** A simulated server of the protocol's platform; this process owns it. */
  simulated: SimulatedServer;
  /** PEM key and certificate the server presents. */
  tls: ServerTls;
  host?: string;
  /** 0 picks a free port. */
  port?: number;
  /** The manager login the server accepts; the simulated server's own by default. */
  manager?: WireCredentials;
}

export abstract class ManagerServer<O extends ManagerServerOptions> {
  /** Open TLS connections. */
  protected readonly sockets = new Set<TLSSocket>();
  private readonly endpoint: HttpsEndpoint;

  /** `name` as errors say it ("The MT4 gateway"); `idleTimeoutMs` is the vendor's drop of a silent connection. */
  constructor(
    protected readonly options: O,
    description: { name: string; platform: TradePlatformType; idleTimeoutMs: number },
  ) {
    if (options.simulated.platform !== description.platform) throw new Error(`${description.name} needs an ${description.platform} simulated server`);
    this.endpoint = new HttpsEndpoint({
      name: description.name,
      tls: options.tls,
      handle: (req, res) => void this.handle(req, res),
      // A server that is "down" takes no connection: the client sees it as unreachable.
      refusing: () => this.simulated.faults.refusingConnections,
      idleTimeoutMs: description.idleTimeoutMs,
      onSecureConnection: (socket) => {
        this.sockets.add(socket);
        socket.on("close", () => this.sockets.delete(socket));
        this.connected(socket);
      },
    });
  }

  protected abstract handle(req: IncomingMessage, res: ServerResponse): Promise<void>;

  /** A TLS connection is up (its `close` is already followed). */
  protected connected(_socket: Socket): void {}

  get simulated(): SimulatedServer {
    return this.options.simulated;
  }

  get manager(): WireCredentials {
    return this.options.manager ?? DEFAULT_MANAGER;
  }

  /** Starts listening; resolves with the address to give a connector. */
  listen(): Promise<Listening> {
    return this.endpoint.listen(this.options.host ?? "127.0.0.1", this.options.port ?? 0);
  }

  get url(): string {
    return this.endpoint.url;
  }

  get connectionCount(): number {
    return this.sockets.size;
  }

  /** Drops every connection now (clients must open their session again). */
  dropConnections(): void {
    for (const socket of this.sockets) socket.destroy();
  }

  async close(): Promise<void> {
    this.dropConnections();
    await this.endpoint.close();
  }
}
