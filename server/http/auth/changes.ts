import type { PgliteProxy } from "../../db/pglite/proxy.ts";
import type { FastifyBaseLogger } from "fastify";
import pg from "pg";
import type { Database } from "../../db/client.ts";

/**
 * The database announces every change that affects who may do what (the triggers of migration 0002_revoked_grants):
 * a membership or claim of an organization changed, a grant was revoked. Each node listens, so its
 * caches follow the database whoever wrote to it — this node, another node, or an operator's SQL.
 */
export const ACCESS_CHANNEL = "toolbox_access";

export type AccessChange = { kind: "organization"; organizationId: string } | { kind: "grant"; grantId: string } | { kind: "all" };

export function parseAccessChange(payload: string): AccessChange {
  if (payload.startsWith("org:")) return { kind: "organization", organizationId: payload.slice(4) };
  if (payload.startsWith("grant:")) return { kind: "grant", grantId: payload.slice(6) };
  return { kind: "all" };
}

export interface AccessChangeHandlers {
  onChange(change: AccessChange): void;
  /** Announcements may have been missed (the listening connection dropped, or was just made). */
  onGap(): void;
}

const RECONNECT_MIN_MS = 500;
const RECONNECT_MAX_MS = 30_000;

/**
 * Listens on ACCESS_CHANNEL. PGlite runs inside this process and hands notifications over before
 * the writing query returns; PostgreSQL sends them over a dedicated connection (not one of the
 * pool's), which is re-made with backoff when it drops. `listening` is false while it is down:
 * caches then must not be trusted.
 */
export class AccessChangeFeed {
  listening = false;
  private stopped = false;
  private stopListening?: () => Promise<void>;
  private retry?: NodeJS.Timeout;
  private retryDelay = RECONNECT_MIN_MS;

  constructor(
    private readonly database: Database,
    private readonly handlers: AccessChangeHandlers,
    private readonly log: FastifyBaseLogger,
  ) {}

  async start(): Promise<void> {
    this.stopped = false;
    await this.connect();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.retry);
    this.listening = false;
    const stop = this.stopListening;
    this.stopListening = undefined;
    await stop?.().catch(() => {});
  }

  private readonly deliver = (payload: string) => this.handlers.onChange(parseAccessChange(payload));

  private async connect(): Promise<void> {
    // Drizzle keeps the driver's client as `$client`: the PGlite instance, or the pg pool.
    const client = (this.database.db as unknown as { $client: unknown }).$client;
    try {
      if (this.database.kind === "pglite") {
        const unlisten = await (client as PgliteProxy).listen(ACCESS_CHANNEL, this.deliver);
        this.stopListening = () => unlisten();
      } else {
        await this.connectPostgres((client as pg.Pool).options);
      }
      this.listening = true;
      this.retryDelay = RECONNECT_MIN_MS;
      this.handlers.onGap();
    } catch (err) {
      this.lost(err);
    }
  }

  private async connectPostgres(options: pg.PoolConfig): Promise<void> {
    const connection = new pg.Client({ ...options, keepAlive: true });
    connection.on("notification", (message) => {
      if (message.channel === ACCESS_CHANNEL) this.deliver(message.payload ?? "");
    });
    connection.on("error", (err) => this.lost(err));
    connection.on("end", () => this.lost(new Error("the connection ended")));
    this.stopListening = async () => {
      connection.removeAllListeners("end");
      connection.removeAllListeners("error");
      connection.on("error", () => {});
      await connection.end();
    };
    await connection.connect();
    await connection.query(`LISTEN ${ACCESS_CHANNEL}`);
  }

  private lost(err: unknown) {
    if (this.stopped) return;
    const wasListening = this.listening;
    this.listening = false;
    this.handlers.onGap();
    const stop = this.stopListening;
    this.stopListening = undefined;
    void stop?.().catch(() => {});
    if (this.retry) return;
    if (wasListening || this.retryDelay === RECONNECT_MIN_MS) {
      this.log.warn({ err, retryInMs: this.retryDelay }, "lost the database's access notifications; caches are off until they are back");
    }
    this.retry = setTimeout(() => {
      this.retry = undefined;
      void this.connect();
    }, this.retryDelay);
    this.retry.unref();
    this.retryDelay = Math.min(this.retryDelay * 2, RECONNECT_MAX_MS);
  }
}
