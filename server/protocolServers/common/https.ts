/**
 * The HTTPS side every local protocol server shares: the server with its certificate, a client
 * that does not trust it hanging up quietly, connections refused while the server plays "down",
 * the vendor's idle drop, listening on a host and port (0 picks a free one) and the URL to give a
 * connector (an IPv6 host in brackets), and reading and answering JSON bodies. The MT5 Web API,
 * the MT4 gateway and the Match-Trader Broker API servers build on it; a new vendor's should too
 * (docs/connectors.md).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { createServer, type Server } from "node:https";
import type { AddressInfo, Socket } from "node:net";
import type { TLSSocket } from "node:tls";
import { bracketHost } from "../../connectors/transport/address.ts";

/** PEM key and certificate a server presents. */
export interface ServerTls {
  key: string;
  cert: string;
}

export interface HttpsEndpointOptions {
  /** The server as named in its errors, e.g. "The MT4 gateway". */
  name: string;
  tls: ServerTls;
  handle(req: IncomingMessage, res: ServerResponse): void;
  /** While this says so, a new connection is destroyed at once: the client sees the server as unreachable. */
  refusing?(): boolean;
  /**
   * A connection silent this long is closed. The socket's own timeout, not HTTP keep-alive's: that
   * one would announce itself (`Keep-Alive: timeout=`) and clients would hang up first, which the
   * vendors do not ask; so keep-alive's timeout is off when this is set.
   */
  idleTimeoutMs?: number;
  /** Each connection as it comes, before TLS. */
  onConnection?(socket: Socket): void;
  /** Each connection once TLS is up. */
  onSecureConnection?(socket: TLSSocket): void;
}

export interface Listening {
  url: string;
  host: string;
  port: number;
}

export class HttpsEndpoint {
  readonly server: Server;
  private address: { host: string; port: number } | null = null;

  constructor(private readonly options: HttpsEndpointOptions) {
    this.server = createServer({ key: options.tls.key, cert: options.tls.cert }, (req, res) => options.handle(req, res));
    const idle = options.idleTimeoutMs;
    if (idle !== undefined) this.server.keepAliveTimeout = 0;
    this.server.on("connection", (socket: Socket) => {
      if (options.refusing?.()) socket.destroy();
      else options.onConnection?.(socket);
    });
    this.server.on("secureConnection", (socket: TLSSocket) => {
      if (idle !== undefined) socket.setTimeout(idle, () => socket.destroy());
      options.onSecureConnection?.(socket);
    });
    // A client that does not trust the certificate hangs up during the handshake: nothing to report.
    this.server.on("tlsClientError", () => undefined);
  }

  /** Starts listening; resolves with the address to give a connector. */
  async listen(host: string, port: number): Promise<Listening> {
    await new Promise<void>((resolve, reject) => {
      this.server.once("error", reject);
      this.server.listen(port, host, () => resolve());
    });
    this.address = { host, port: (this.server.address() as AddressInfo | null)?.port ?? 0 };
    return { url: this.url, ...this.address };
  }

  /** `https://host:port`, the host in brackets when it is an IPv6 address. */
  get url(): string {
    if (!this.address) throw new Error(`${this.options.name} is not listening`);
    return `https://${bracketHost(this.address.host)}:${this.address.port}`;
  }

  /** Stops listening once every connection is gone (destroy them first). */
  async close(): Promise<void> {
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** A body past the server's limit. */
export class BodyTooLarge extends Error {
  constructor() {
    super("Body too large");
  }
}

/** The request body as text; BodyTooLarge past `maxBytes`. */
export async function readBody(req: IncomingMessage, maxBytes: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBytes) throw new BodyTooLarge();
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/**
 * Answers with a JSON text (none when `body` is undefined). Nothing is written on an answer
 * already ended; a stream that failed after its headers went out ends its connection instead.
 */
export function sendJson(res: ServerResponse, status: number, body: string | undefined, headers: Record<string, string> = {}): void {
  if (res.writableEnded || res.destroyed) return;
  if (res.headersSent) {
    res.destroy();
    return;
  }
  if (body === undefined) {
    res.writeHead(status, headers).end();
    return;
  }
  res.writeHead(status, { "content-type": "application/json; charset=utf-8", "content-length": String(Buffer.byteLength(body)), ...headers });
  res.end(body);
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
