/**
 * The live side of trade platforms: one connection per enabled platform of every organization,
 * kept by the ConnectionManager (backoff with jitter; a slow or failing platform never blocks
 * another), its state and server time published to listeners (the live page, the accounts
 * mirror), and the connector handed to whoever acts on a platform — only for the organization
 * that owns it. The database is the source of truth: after each committed change the routes call
 * `refresh(id)`, which reads the row again and brings the connection in line.
 *
 * One runtime per process. Several Toolbox nodes each keep their own connections; a change made
 * on one node reaches the others at their next start (see "what's left" in docs).
 */
import { and, eq } from "drizzle-orm";
import type { FastifyBaseLogger } from "fastify";
import type { ConnectionState, TradePlatformType } from "../../core/trading/index.ts";
import type { ConnectorConfig } from "../connectors/config.ts";
import type { TradePlatformConnector } from "../connectors/connector.ts";
import { createConnector } from "../connectors/factory.ts";
import { ConnectionManager, type ConnectionManagerOptions, type ManagedPlatform, type PlatformStatus } from "../connectors/manager.ts";
import { SimulatedServerRegistry } from "../connectors/simulated/registry.ts";
import type { SimulatedServer } from "../connectors/simulated/server.ts";
import { withTimeout } from "../connectors/wire/timeout.ts";
import { systemClock } from "../connectors/clock.ts";
import type { Db } from "../db/client.ts";
import { tradePlatforms, type StoredConnection } from "../db/tables/platforms.ts";
import { HttpError } from "../http/errors.ts";
import { SecretUnreadable, type SecretCipher } from "../secrets/cipher.ts";
import { connectorConfigOf, type ConnectablePlatform } from "./connection.ts";
import { testConnection, type TestConnectionInput, type TestConnectionResult } from "./testConnection.ts";
import { formatServerTime } from "./timeZone.ts";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface PlatformRef {
  id: string;
  organizationId: string;
  type: TradePlatformType;
}

export interface PlatformState {
  state: ConnectionState;
  /** Why the platform is not connected, in a dealer's words; null when connected or disabled. */
  lastError: string | null;
  /** The server's clock, RFC 3339 with the server's offset; while connected. */
  serverTime?: string;
}

/** A state event: published on every change of a platform's connection. */
export interface PlatformStateEvent extends PlatformState {
  platformId: string;
  organizationId: string;
}

export interface PlatformRuntimeOptions {
  /** Overrides for the connection manager (tests: backoff, connect timeout). */
  manager?: Pick<ConnectionManagerOptions, "backoff" | "connectTimeoutMs" | "random">;
  /** How long "Test connection" waits for the server, 10 s by default. */
  testConnectionTimeoutMs?: number;
  /** How long `connectorFor` waits for a platform that is still connecting, 5 s by default. */
  connectWaitMs?: number;
  /** How often each connected platform's clock is read again, 60 s by default (in between it is extrapolated). */
  serverTimeRefreshMs?: number;
}

interface Known {
  id: string;
  organizationId: string;
  type: TradePlatformType;
  name: string;
  enable: boolean;
}

interface Managed extends ManagedPlatform {
  organizationId: string;
  type: TradePlatformType;
  /** Identity of the simulated server behind it (seed, size, rate, zone); a change restarts that server. */
  serverIdentity: string | null;
  timeZone: string;
}

interface ServerClock {
  /** Server time minus local time, ms. */
  skewMs: number;
  offsetMinutes: number;
}

type Row = typeof tradePlatforms.$inferSelect;

export class PlatformRuntime {
  private readonly manager: ConnectionManager;
  private readonly simulatedServers = new SimulatedServerRegistry();
  private readonly known = new Map<string, Known>();
  private readonly managed = new Map<string, Managed>();
  /** Enabled platforms that cannot connect at all (real kind not available yet, unreadable secret). */
  private readonly unavailable = new Map<string, string>();
  private readonly clocks = new Map<string, ServerClock>();
  /** What each running simulated server was started with (see serverIdentity). */
  private readonly serverIdentities = new Map<string, string>();
  private readonly lastStates = new Map<string, ConnectionState>();
  private readonly queues = new Map<string, Promise<void>>();
  private readonly stateListeners = new Set<(event: PlatformStateEvent) => void>();
  private readonly connectedListeners = new Set<(platform: PlatformRef, connector: TradePlatformConnector) => void>();
  private readonly removedListeners = new Set<(platformId: string) => void>();
  private clockTimer: ReturnType<typeof setInterval> | null = null;
  private stopped = false;

  constructor(
    private readonly db: Db,
    private readonly cipher: SecretCipher,
    private readonly log: FastifyBaseLogger,
    private readonly options: PlatformRuntimeOptions = {},
  ) {
    this.manager = new ConnectionManager({
      ...options.manager,
      createConnector: (config) => createConnector(config, { simulatedServers: this.simulatedServers }),
    });
    this.manager.onStatus((status) => this.onManagerStatus(status));
  }

  // ── Lifecycle ────────────────────────────────────────────────────────────────────────────

  /** Loads every platform of every organization and starts connecting the enabled ones; does not wait for them. */
  async start(): Promise<void> {
    const rows = await this.db.select().from(tradePlatforms);
    for (const row of rows) this.apply(row, { sync: false });
    this.sync();
    const interval = this.options.serverTimeRefreshMs ?? 60_000;
    this.clockTimer = setInterval(() => this.refreshClocks(), interval);
    this.clockTimer.unref();
    this.log.info({ platforms: rows.length, enabled: this.managed.size }, "trade platforms started");
  }

  /** Disconnects every platform and stops the simulated servers. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.clockTimer) clearInterval(this.clockTimer);
    await this.manager.stop();
    this.simulatedServers.stopAll();
    this.stateListeners.clear();
    this.connectedListeners.clear();
    this.removedListeners.clear();
  }

  /**
   * Brings one platform's connection in line with its row (created, changed, enabled, disabled,
   * deleted). Call after the change is committed. Calls for one platform run one after another,
   * each reading the row anew, so the last one always applies the latest state. Never rejects
   * (a failure is logged).
   */
  refresh(platformId: string): Promise<void> {
    const previous = this.queues.get(platformId) ?? Promise.resolve();
    const next = previous.then(async () => {
      if (this.stopped) return;
      try {
        const [row] = await this.db.select().from(tradePlatforms).where(eq(tradePlatforms.id, platformId));
        if (this.stopped) return;
        if (row) this.apply(row, { sync: true });
        else this.forget(platformId);
      } catch (err) {
        // The change is committed; the next refresh (or restart) brings the connection in line.
        this.log.error({ err, platformId }, "cannot refresh trade platform");
      }
    });
    this.queues.set(platformId, next);
    void next.finally(() => {
      if (this.queues.get(platformId) === next) this.queues.delete(platformId);
    });
    return next;
  }

  // ── Reading ──────────────────────────────────────────────────────────────────────────────

  /**
   * The live connector of an enabled platform of THAT organization. 404 when the platform is not
   * the organization's (others' are never revealed), 409 when disabled, 503 when not connected
   * (after waiting a moment for one that is connecting).
   */
  async connectorFor(organizationId: string, platformId: string): Promise<TradePlatformConnector> {
    if (!UUID.test(platformId)) throw new HttpError(404, "No such trade platform");
    const [row] = await this.db
      .select({ name: tradePlatforms.name, enable: tradePlatforms.enable })
      .from(tradePlatforms)
      .where(and(eq(tradePlatforms.id, platformId.toLowerCase()), eq(tradePlatforms.organizationId, organizationId)));
    if (!row) throw new HttpError(404, "No such trade platform");
    const id = platformId.toLowerCase();
    if (!row.enable) throw new HttpError(409, `${row.name} is disabled. Enable it in its settings to work with it.`);
    // A row the runtime has not seen (written by another node or directly): take it in now.
    if (!this.managed.has(id) && !this.unavailable.has(id)) await this.refresh(id);
    const unavailable = this.unavailable.get(id);
    if (unavailable) throw new HttpError(503, `${row.name} cannot connect. ${unavailable}`);
    const connector = await this.whenConnected(id, this.options.connectWaitMs ?? 5_000);
    if (connector) return connector;
    const state = this.state(id);
    throw new HttpError(503, `${row.name} is not connected (${state.state}). ${state.lastError ?? "Try again in a moment."}`);
  }

  state(platformId: string): PlatformState {
    const unavailable = this.unavailable.get(platformId);
    if (unavailable) return { state: "failed", lastError: unavailable };
    const status = this.manager.status(platformId);
    if (!status) return { state: "disconnected", lastError: null };
    const state: PlatformState = { state: status.state, lastError: status.state === "connected" ? null : (status.error?.message ?? null) };
    const clock = this.clocks.get(platformId);
    if (status.state === "connected" && clock) state.serverTime = formatServerTime(Date.now() + clock.skewMs, clock.offsetMinutes);
    return state;
  }

  /** The platforms the runtime knows of one organization (enabled or not), for the live page. */
  platformsOf(organizationId: string): PlatformRef[] {
    return [...this.known.values()]
      .filter((p) => p.organizationId === organizationId)
      .map(({ id, organizationId: org, type }) => ({ id, organizationId: org, type }));
  }

  /** The in-process simulated server behind a simulated platform (demo tools and tests switch its faults). */
  simulatedServer(platformId: string): SimulatedServer | undefined {
    return this.simulatedServers.get(platformId);
  }

  // ── Subscriptions ────────────────────────────────────────────────────────────────────────

  /** Every state change of every platform (all organizations: filter by `organizationId`). */
  onPlatformState(listener: (event: PlatformStateEvent) => void): () => void {
    this.stateListeners.add(listener);
    return () => this.stateListeners.delete(listener);
  }

  /**
   * Each time a platform (re)connects, with its connector — at once for those already connected.
   * After a connection change the connector is a new object; one that was disconnected on purpose
   * ends its event streams.
   */
  onConnected(listener: (platform: PlatformRef, connector: TradePlatformConnector) => void): () => void {
    this.connectedListeners.add(listener);
    for (const [id, managed] of this.managed) {
      const connector = this.manager.get(id);
      if (connector && this.manager.status(id)?.state === "connected") {
        this.safely(() => listener({ id, organizationId: managed.organizationId, type: managed.type }, connector));
      }
    }
    return () => this.connectedListeners.delete(listener);
  }

  /** A platform was deleted (its connection is already closed). */
  onRemoved(listener: (platformId: string) => void): () => void {
    this.removedListeners.add(listener);
    return () => this.removedListeners.delete(listener);
  }

  // ── Test connection ──────────────────────────────────────────────────────────────────────

  /**
   * A real attempt with a connection that is not (or not yet) saved: connect, read the server's
   * clock and one account, disconnect. With `platformId` (a saved simulated platform whose
   * options are unchanged) the attempt reaches that platform's own simulated server.
   */
  testConnection(input: TestConnectionInput & { platformId?: string }): Promise<TestConnectionResult> {
    let liveServer: SimulatedServer | undefined;
    if (input.platformId && input.connection.kind === "simulated") {
      const managed = this.managed.get(input.platformId);
      const identity = serverIdentity({ id: input.platformId, type: input.type, timeZone: input.timeZone, connection: input.connection });
      if (managed && managed.serverIdentity === identity) liveServer = this.simulatedServers.get(input.platformId);
    }
    return testConnection(input, { liveServer, timeoutMs: this.options.testConnectionTimeoutMs ?? 10_000 });
  }

  // ── Internals ────────────────────────────────────────────────────────────────────────────

  private apply(row: Row, opts: { sync: boolean }): void {
    this.known.set(row.id, { id: row.id, organizationId: row.organizationId, type: row.type, name: row.name, enable: row.enable });
    const before = this.managed.get(row.id);
    this.unavailable.delete(row.id);

    let next: Managed | null = null;
    if (row.enable) {
      const built = this.build(row, before);
      if ("unavailable" in built) this.unavailable.set(row.id, built.unavailable);
      else next = built.managed;
    }

    if (before && (!next || JSON.stringify(before.config) !== JSON.stringify(next.config))) {
      // Close the old connection first, so its simulated server can be replaced underneath.
      this.managed.delete(row.id);
      this.sync();
    }
    // A disabled platform's simulated server keeps running (it stands for a server Toolbox merely
    // stopped talking to); a change of its options starts a new one from its seed.
    const running = this.serverIdentities.get(row.id);
    if (running !== undefined && next && next.serverIdentity !== running) {
      this.simulatedServers.remove(row.id);
      this.serverIdentities.delete(row.id);
    }
    if (next) {
      this.managed.set(row.id, next);
      if (next.serverIdentity !== null) this.serverIdentities.set(row.id, next.serverIdentity);
    } else {
      this.lastStates.delete(row.id);
      this.clocks.delete(row.id);
    }
    if (opts.sync) this.sync();
    // The manager publishes the states of the connections it runs; the others are said here.
    if (!next) this.publishState(row.id);
  }

  private build(row: Row, before: Managed | undefined): { managed: Managed } | { unavailable: string } {
    let secret: string | null = null;
    if (row.secretCiphertext) {
      try {
        secret = this.cipher.decrypt(row.secretCiphertext, row.id);
      } catch (err) {
        if (!(err instanceof SecretUnreadable)) {
          // The key itself cannot be had (unreadable key file …): say so in the log, keep the others going.
          this.log.error({ err, platformId: row.id }, "cannot read the secrets key");
          return { unavailable: "Toolbox cannot read its secrets key; the server log says why." };
        }
        this.log.warn({ platformId: row.id }, "stored platform secret cannot be decrypted");
        return {
          unavailable:
            "Its stored password or API key cannot be decrypted with this server's SECRETS_KEY. Enter it again in the connection settings.",
        };
      }
    }
    const platform: ConnectablePlatform = { id: row.id, type: row.type, timeZone: row.timeZone, connection: row.connection };
    const built = connectorConfigOf(platform, secret);
    if ("unavailable" in built) return built;
    let config: ConnectorConfig = built.config;
    // Keep the zone offset the running server started with (a DST change must not restart it).
    if (config.kind === "simulated" && before?.config.kind === "simulated" && before.timeZone === row.timeZone) {
      config = { ...config, server: { ...config.server, timeZoneOffsetMinutes: before.config.server?.timeZoneOffsetMinutes } };
    }
    return {
      managed: {
        id: row.id,
        enabled: true,
        config,
        organizationId: row.organizationId,
        type: row.type,
        serverIdentity: serverIdentity(platform),
        timeZone: row.timeZone,
      },
    };
  }

  private forget(platformId: string): void {
    const known = this.known.get(platformId);
    this.managed.delete(platformId);
    this.unavailable.delete(platformId);
    this.known.delete(platformId);
    this.clocks.delete(platformId);
    this.lastStates.delete(platformId);
    this.sync();
    this.simulatedServers.remove(platformId);
    this.serverIdentities.delete(platformId);
    if (known) for (const listener of this.removedListeners) this.safely(() => listener(platformId));
  }

  private sync(): void {
    if (this.stopped) return;
    this.manager.sync([...this.managed.values()]);
  }

  private onManagerStatus(status: PlatformStatus): void {
    const managed = this.managed.get(status.platformId);
    if (!managed) return;
    const previous = this.lastStates.get(status.platformId);
    this.lastStates.set(status.platformId, status.state);
    if (status.state !== "connected") this.clocks.delete(status.platformId);
    this.publishState(status.platformId);
    if (status.state === "connected" && previous !== "connected") {
      const connector = this.manager.get(status.platformId);
      if (!connector) return;
      const ref: PlatformRef = { id: managed.id, organizationId: managed.organizationId, type: managed.type };
      for (const listener of this.connectedListeners) this.safely(() => listener(ref, connector));
      void this.readClock(status.platformId, connector);
    }
  }

  private async readClock(platformId: string, connector: TradePlatformConnector): Promise<void> {
    try {
      const time = await withTimeout(connector.serverTime(), 10_000, systemClock);
      if (this.manager.get(platformId) !== connector || connector.state !== "connected") return;
      const hadClock = this.clocks.has(platformId);
      this.clocks.set(platformId, { skewMs: time.time - Date.now(), offsetMinutes: time.timeZoneOffsetMinutes });
      if (!hadClock) this.publishState(platformId);
    } catch {
      // The next refresh tries again; the state events carry no time meanwhile.
    }
  }

  private refreshClocks(): void {
    for (const id of this.managed.keys()) {
      const connector = this.manager.get(id);
      if (connector && connector.state === "connected") void this.readClock(id, connector);
    }
  }

  private publishState(platformId: string): void {
    const known = this.known.get(platformId);
    if (!known) return;
    const event: PlatformStateEvent = { platformId, organizationId: known.organizationId, ...this.state(platformId) };
    for (const listener of this.stateListeners) this.safely(() => listener(event));
  }

  private async whenConnected(platformId: string, waitMs: number): Promise<TradePlatformConnector | null> {
    const current = () => {
      const connector = this.manager.get(platformId);
      return connector && this.manager.status(platformId)?.state === "connected" ? connector : null;
    };
    const now = current();
    if (now || waitMs <= 0) return now;
    const state = this.manager.status(platformId)?.state;
    if (state !== "connecting" && state !== "reconnecting") return null;
    return new Promise((resolve) => {
      const done = (value: TradePlatformConnector | null) => {
        clearTimeout(timer);
        unlisten();
        resolve(value);
      };
      const timer = setTimeout(() => done(current()), waitMs);
      const unlisten = this.manager.onStatus((status) => {
        if (status.platformId !== platformId) return;
        if (status.state === "connected") done(current());
        else if (status.state === "failed" || status.state === "disconnected") done(null);
      });
    });
  }

  private safely(fn: () => void): void {
    try {
      fn();
    } catch (err) {
      this.log.error({ err }, "trade platform listener failed");
    }
  }
}

/** What makes a simulated server the same server: a change to any of these restarts it from its seed. */
function serverIdentity(platform: { id: string; type: TradePlatformType; timeZone: string; connection: StoredConnection }): string | null {
  const c = platform.connection;
  if (c.kind !== "simulated") return null;
  return JSON.stringify([platform.type, platform.timeZone, c.seed, c.accounts, c.tradeRate]);
}
