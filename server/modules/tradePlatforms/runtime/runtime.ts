/**
 * The live side of trade platforms: one connection per enabled platform of every organization,
 * kept by the ConnectionManager (backoff with jitter; a slow or failing platform never blocks
 * another), its state and server time published on the event bus (`platformState`, and
 * `platformRemoved` when it is deleted: the live page, the accounts mirror and the trade feed
 * follow them), and the connector handed to whoever acts on a platform — only for the
 * organization that owns it, or to the in-process followers of `onConnected`. The database is the source of truth: after each committed change the routes call
 * `refresh(id)`, which reads the row again and brings the connection in line. Each platform's
 * background work runs under its supervisor (supervisor.ts).
 *
 * Its parts: managedPlatform.ts (from a row to what runs for it), serverClocks.ts (the servers'
 * clocks), listeners.ts (who is handed connectors), supervisor.ts (failures and restarts),
 * refreshQueue.ts and connectionWait.ts.
 *
 * One runtime per process. Several Toolbox nodes each keep their own connections (publishing a
 * platform's trade feed and its state is owned, by the node holding its lease:
 * server/events/tradeFeed.ts, `stateSaidBy`); a
 * simulated platform's server runs on one node and is reached from the others over the bus
 * (simulatedHost.ts, decision 0069); a change made on one node reaches the others' runtimes at once
 * (`platformChanged`, `platformRemoved`). See docs/events.md, "Several nodes".
 *
 * One idea: keeping this node's platform connections in line with the database.
 */
import type { FastifyBaseLogger } from "fastify";
import { isUuid } from "../../../../core/ids.ts";
import type { ConnectionState } from "../../../../core/trading/index.ts";
import { DEFAULT_BACKOFF } from "../../../connectors/backoff.ts";
import type { TradePlatformConnector } from "../../../connectors/connector.ts";
import { createConnector } from "../../../connectors/factory.ts";
import { DbOrderJournal } from "./orderJournalRepository.ts";
import { ConnectionManager, type PlatformStatus } from "../../../connectors/manager.ts";
import { SimulatedServerRegistry } from "../../../connectors/simulated/registry.ts";
import { randomUUID } from "node:crypto";
import { SimulatedHost } from "./simulatedHost.ts";
import type { SimulatedServer } from "../../../connectors/simulated/server.ts";
import type { LeverageChange } from "../../../connectors/simulated/engine/flexibleLeverage.ts";
import type { Db } from "../../../db/client.ts";
import { ConflictError, NotFoundError, UnavailableError } from "../../../errors.ts";
import type { SecretCipher } from "../../../secrets/cipher.ts";
import { whenConnected } from "./connectionWait.ts";
import type { EventBus } from "../../../events/bus.ts";
import type { DomainEvent, PlatformRef, PlatformState } from "../../../events/types.ts";
import { HeardStates } from "./heardStates.ts";
import { ConnectedListeners } from "./listeners.ts";
import { knownOf, managedOf, serverIdentity, type KnownPlatform, type Managed, type PlatformRow } from "./managedPlatform.ts";
import { RefreshQueue } from "./refreshQueue.ts";
import { allPlatformRows, platformRow, platformSwitchOf } from "./runtimeRepository.ts";
import { ServerClocks } from "./serverClocks.ts";
import { PlatformSupervisor } from "./supervisor.ts";
import { testConnection, type TestConnectionInput, type TestConnectionResult } from "./testConnection.ts";
import type { PlatformRuntimeOptions } from "./types.ts";

/** whenFirstConnected: a platform that failed this many attempts in a row no longer holds the start-up banner. */
const FIRST_CONNECT_TRIES = 3;

/** The runtime's simulated servers are its host's, never a registry of the connector factory. */
const NO_LOCAL_SERVERS = new SimulatedServerRegistry();

export class PlatformRuntime {
  private readonly manager: ConnectionManager;
  private readonly supervisor: PlatformSupervisor;
  private readonly listeners: ConnectedListeners;
  private readonly clocks: ServerClocks;
  /** The simulated servers: each runs on one node, kept in the database, reached from the others over the bus (decision 0069). */
  private readonly simulatedServers: SimulatedHost;
  private readonly known = new Map<string, KnownPlatform>();
  private readonly managed = new Map<string, Managed>();
  /** Enabled platforms that cannot connect at all (real kind not available yet, unreadable secret). */
  private readonly unavailable = new Map<string, string>();
  /** What each running simulated server was started with (see serverIdentity). */
  private readonly serverIdentities = new Map<string, string>();
  private readonly lastStates = new Map<string, ConnectionState>();
  private readonly refreshes = new RefreshQueue();
  /** Whether this node says a platform's state (it holds the platform's feed lease, or nobody else does): see `stateSaidBy`. */
  private saysState: (platformId: string) => boolean = () => true;
  private readonly heard = new HeardStates();
  private readonly nodeId: string;
  private unfollow: () => void = () => {};
  private stopped = false;

  constructor(
    private readonly db: Db,
    private readonly cipher: SecretCipher,
    private readonly log: FastifyBaseLogger,
    private readonly bus: EventBus,
    private readonly options: PlatformRuntimeOptions = {},
  ) {
    this.listeners = new ConnectedListeners(log);
    this.nodeId = options.node?.id ?? `node-${randomUUID()}`;
    this.simulatedServers = new SimulatedHost({
      db,
      link: bus.link,
      nodeId: this.nodeId,
      ttlMs: options.node?.feedLeaseTtlMs ?? 15_000,
      log,
      identityOf: (id) => this.managed.get(id)?.serverIdentity ?? null,
      snapshotEveryCommands: options.simulatedSnapshotEveryCommands,
    });
    this.supervisor = new PlatformSupervisor(log, { ...DEFAULT_BACKOFF, ...options.manager?.backoff }, options.manager?.random ?? Math.random, {
      takeDown: (id) => this.takeDown(id),
      bringUp: (id) => void this.refresh(id),
      changed: (id) => this.publishState(id),
    });
    const onFault = (platformId: string, error: unknown) => this.supervisor.fault(platformId, error);
    this.manager = new ConnectionManager({
      ...options.manager,
      createConnector: (config, platformId) =>
        createConnector(config, {
          simulatedServers: NO_LOCAL_SERVERS,
          simulatedTransports: this.simulatedServers,
          onFault: (error) => onFault(platformId, error),
          tradeServerTargets: options.tradeServerTargets,
          orderJournal: new DbOrderJournal(db, platformId),
        }),
      onFault,
    });
    this.manager.onStatus((status) => this.onManagerStatus(status));
    this.clocks = new ServerClocks({
      connected: () => this.connectedConnectors(),
      isCurrent: (id, connector) => this.manager.get(id) === connector,
      firstReading: (id) => this.publishState(id),
    });
  }

  // ── Lifecycle ────────────────────────────────────────────────────────────────────────────

  /** Loads every platform of every organization and starts connecting the enabled ones; does not wait for them. */
  async start(): Promise<void> {
    // A change made on another node reaches this one at once (and a removal, which its followers hear too).
    const changes = this.bus.subscribe({ types: ["platformChanged", "platformRemoved", "platformState"] }, ({ event }) => {
      if (event.type === "platformState") {
        const { state, lastError, serverTime } = event;
        return this.heard.hear(event.platformId, { state, lastError, ...(serverTime ? { serverTime } : {}) });
      }
      if (event.type === "platformRemoved") this.heard.forget(event.platformId);
      if (event.type === "platformChanged" && event.nodeId === this.nodeId) return;
      void this.refreshQuietly(event.platformId);
    });
    this.unfollow = () => changes.close();
    const rows = await allPlatformRows(this.db);
    for (const row of rows) this.apply(row, { sync: false });
    this.sync();
    this.clocks.start(this.options.serverTimeRefreshMs ?? 60_000);
    this.log.info({ platforms: rows.length, enabled: this.managed.size }, "trade platforms started");
  }

  /** Disconnects every platform and stops the simulated servers. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.unfollow();
    this.supervisor.stop();
    this.clocks.stop();
    await this.manager.stop();
    await this.simulatedServers.stop();
    this.listeners.clear();
  }

  /**
   * Brings one platform's connection in line with its row (created, changed, enabled, disabled,
   * deleted). Call after the change is committed. Calls for one platform run one after another,
   * each reading the row anew, so the last one always applies the latest state. Never rejects
   * (a failure is logged).
   */
  async refresh(platformId: string): Promise<void> {
    await this.refreshQuietly(platformId, true);
    const known = this.known.get(platformId);
    // The other nodes read the row again too (a removal they hear of as `platformRemoved`).
    if (known) this.publish({ type: "platformChanged", organizationId: known.organizationId, platformId, nodeId: this.nodeId });
  }

  /** `refresh` without telling the other nodes: for a change they made (and announced, a removal included). */
  private refreshQuietly(platformId: string, announceRemoval = false): Promise<void> {
    return this.refreshes.run(platformId, async () => {
      if (this.stopped) return;
      try {
        const row = await platformRow(this.db, platformId);
        if (this.stopped) return;
        if (row) this.apply(row, { sync: true });
        else this.forget(platformId, announceRemoval);
      } catch (err) {
        // The change is committed; the next refresh (or restart) brings the connection in line.
        this.log.error({ err, platformId }, "cannot refresh trade platform");
      }
    });
  }

  // ── Reading ──────────────────────────────────────────────────────────────────────────────

  /**
   * The live connector of an enabled platform of THAT organization. 404 when the platform is not
   * the organization's (others' are never revealed), 409 when disabled, 503 when not connected
   * (after waiting a moment for one that is connecting).
   */
  async connectorFor(organizationId: string, platformId: string): Promise<TradePlatformConnector> {
    if (!isUuid(platformId)) throw new NotFoundError("No such trade platform");
    const row = await platformSwitchOf(this.db, organizationId, platformId.toLowerCase());
    if (!row) throw new NotFoundError("No such trade platform");
    const id = platformId.toLowerCase();
    if (!row.enable) throw new ConflictError(`${row.name} is disabled. Enable it in its settings to work with it.`);
    // A row the runtime has not seen (written by another node or directly): take it in now.
    if (!this.managed.has(id) && !this.unavailable.has(id) && !this.supervisor.isDown(id)) await this.refresh(id);
    const unavailable = this.unavailable.get(id);
    if (unavailable) throw new UnavailableError(`${row.name} cannot connect. ${unavailable}`);
    const connector = await whenConnected(this.manager, id, this.options.connectWaitMs ?? 5_000);
    if (connector) return connector;
    const state = this.state(id);
    throw new UnavailableError(`${row.name} is not connected (${state.state}). ${state.lastError ?? "Try again in a moment."}`);
  }

  state(platformId: string): PlatformState {
    // (A disabled platform's simulated server may fail too; the platform still shows as disabled.)
    const down = this.known.get(platformId)?.enable ? this.supervisor.reason(platformId) : null;
    const unavailable = this.unavailable.get(platformId) ?? down;
    if (unavailable) return { state: "failed", lastError: unavailable };
    const status = this.manager.status(platformId);
    if (!status) return { state: "disconnected", lastError: null };
    const state: PlatformState = { state: status.state, lastError: status.state === "connected" ? null : (status.error?.message ?? null) };
    const serverTime = status.state === "connected" ? this.clocks.serverTime(platformId) : undefined;
    if (serverTime) state.serverTime = serverTime;
    return state;
  }

  /**
   * The platform's state as the live pages show it: this node's when this node says it, else the
   * state the node holding the platform's feed lease said on the bus (see `stateSaidBy`).
   */
  liveState(platformId: string): PlatformState {
    const local = this.state(platformId);
    return this.saysState(platformId) ? local : this.heard.shown(platformId, local);
  }

  /**
   * Several nodes: each platform's state is said (`platformState` on the bus) only by the node
   * holding its feed lease, or by every node while nobody else holds it (nobody connected: each
   * says why it cannot connect). The trade feed sets it; without, this node says every platform's.
   */
  stateSaidBy(says: (platformId: string) => boolean): void {
    this.saysState = says;
  }

  /** Says the platform's state on the bus now (this node just took its feed lease). */
  sayState(platformId: string): void {
    this.publishState(platformId);
  }

  /** The platforms the runtime knows of one organization (enabled or not), for the live page. */
  platformsOf(organizationId: string): PlatformRef[] {
    return [...this.known.values()]
      .filter((p) => p.organizationId === organizationId)
      .map(({ id, organizationId: org, type }) => ({ id, organizationId: org, type }));
  }

  /** This node's id (leases name their holder with it). */
  get node(): string {
    return this.nodeId;
  }

  /**
   * Hears the leverage changes the Flexible Leverage plugin of a simulated server running on this
   * node makes (only the node running it hears them; replayed rounds are heard again). Answers the
   * way to stop hearing.
   */
  onSimulatedLeverageChanges(listener: (platformId: string, changes: LeverageChange[]) => void): () => void {
    return this.simulatedServers.onLeverageChanges(listener);
  }

  /** The in-process simulated server behind a simulated platform (demo tools and tests switch its faults). */
  simulatedServer(platformId: string): SimulatedServer | undefined {
    return this.simulatedServers.get(platformId);
  }

  /**
   * Resolves once every enabled platform is connected, has failed FIRST_CONNECT_TRIES attempts in
   * a row, or cannot connect at all — or after `timeoutMs`: the start waits for it so its banner
   * comes after the connection lines. (One failed attempt is not enough: a simulated server still
   * starting may refuse the first.) The ids of the platforms connected by then.
   */
  whenFirstConnected(timeoutMs: number): Promise<string[]> {
    const settled = (id: string): boolean => {
      if (this.unavailable.has(id) || this.supervisor.isDown(id)) return true;
      const status = this.manager.status(id);
      return status?.state === "connected" || (status?.failures ?? 0) >= FIRST_CONNECT_TRIES;
    };
    const connected = () => [...this.managed.keys()].filter((id) => this.manager.status(id)?.state === "connected");
    return new Promise((resolve) => {
      let off: () => void = () => {};
      const timer = setTimeout(() => done(), timeoutMs);
      const done = () => {
        clearTimeout(timer);
        off();
        resolve(connected());
      };
      const check = () => {
        if ([...this.managed.keys()].every(settled)) done();
      };
      off = this.manager.onStatus(check);
      check();
    });
  }

  // ── Subscriptions ────────────────────────────────────────────────────────────────────────
  // States and removals are on the bus (`platformState`, `platformRemoved`); only the live
  // connector, which cannot leave this node, is handed out here.

  /**
   * Each time a platform (re)connects, with its connector — at once for those already connected.
   * After a connection change the connector is a new object; one that was disconnected on purpose
   * ends its event streams.
   */
  onConnected(listener: (platform: PlatformRef, connector: TradePlatformConnector) => void): () => void {
    const unlisten = this.listeners.add(listener);
    for (const [id, connector] of this.connectedConnectors()) {
      const managed = this.managed.get(id)!;
      this.listeners.publish({ id, organizationId: managed.organizationId, type: managed.type }, connector, listener);
    }
    return unlisten;
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
    return testConnection(input, {
      liveServer,
      timeoutMs: this.options.testConnectionTimeoutMs ?? 10_000,
      tradeServerTargets: this.options.tradeServerTargets,
    });
  }

  // ── Internals ────────────────────────────────────────────────────────────────────────────

  private apply(row: PlatformRow, opts: { sync: boolean }): void {
    this.known.set(row.id, knownOf(row));
    const before = this.managed.get(row.id);
    this.unavailable.delete(row.id);

    let next: Managed | null = null;
    // A platform down after a failure stays down until its supervisor brings it up.
    if (row.enable && !this.supervisor.isDown(row.id)) {
      const built = managedOf(row, before, { cipher: this.cipher, log: this.log });
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
      this.clocks.forget(row.id);
    }
    if (opts.sync) this.sync();
    // The manager publishes the states of the connections it runs; the others are said here.
    if (!next) this.publishState(row.id);
  }

  /** After a failure: its connection closes and its simulated server stops (a restart restores it from the database). */
  private takeDown(platformId: string): void {
    if (this.managed.delete(platformId)) this.sync();
    this.simulatedServers.remove(platformId);
    this.serverIdentities.delete(platformId);
    this.clocks.forget(platformId);
    this.lastStates.delete(platformId);
  }

  private forget(platformId: string, announce: boolean): void {
    const known = this.known.get(platformId);
    this.supervisor.forget(platformId);
    this.managed.delete(platformId);
    this.unavailable.delete(platformId);
    this.known.delete(platformId);
    this.clocks.forget(platformId);
    this.lastStates.delete(platformId);
    this.sync();
    this.simulatedServers.remove(platformId);
    this.serverIdentities.delete(platformId);
    if (known && announce) this.publish({ type: "platformRemoved", organizationId: known.organizationId, platformId });
  }

  private sync(): void {
    if (this.stopped) return;
    this.manager.sync([...this.managed.values()]);
  }

  private *connectedConnectors(): Generator<[string, TradePlatformConnector]> {
    for (const id of this.managed.keys()) {
      const connector = this.manager.get(id);
      if (connector && this.manager.status(id)?.state === "connected") yield [id, connector];
    }
  }

  private onManagerStatus(status: PlatformStatus): void {
    const managed = this.managed.get(status.platformId);
    if (!managed) return;
    const previous = this.lastStates.get(status.platformId);
    this.lastStates.set(status.platformId, status.state);
    if (status.state !== "connected") this.clocks.forget(status.platformId);
    this.publishState(status.platformId);
    if (status.state === "connected" && previous !== "connected") {
      const connector = this.manager.get(status.platformId);
      if (!connector) return;
      this.listeners.publish({ id: managed.id, organizationId: managed.organizationId, type: managed.type }, connector);
      void this.clocks.read(status.platformId, connector);
    }
  }

  private publishState(platformId: string): void {
    const known = this.known.get(platformId);
    if (!known || !this.saysState(platformId)) return;
    this.publish({ type: "platformState", platformId, organizationId: known.organizationId, ...this.state(platformId) });
  }

  /** On the bus, in order; a bus that cannot take it (NATS away) is logged, and the next change says the state again. */
  private publish(event: DomainEvent): void {
    this.bus.publish(event).catch((err: unknown) => {
      if (!this.stopped) this.log.warn({ err, platformId: event.platformId, type: event.type }, "cannot publish a trade platform event on the bus");
    });
  }
}
