/**
 * The connection half of a wire connector: opens sessions, tracks the connection state and tells
 * listeners, runs every request with a timeout, and turns native failures into ConnectorErrors
 * through the platform's error codec. Reconnecting is the ConnectionManager's job; a lost link
 * only moves the state to `reconnecting` and keeps the event journal and its streams.
 */
import type { ConnectionState } from "../../../core/trading/index.ts";
import type { Clock } from "../clock.ts";
import type { StateChange } from "../connector.ts";
import { ConnectorError, connectorErrors } from "../errors.ts";
import { EventJournal } from "../events/eventJournal.ts";
import type { PlatformCodec } from "./codec.ts";
import { EventIngest } from "./eventIngest.ts";
import { TimeoutError, withTimeout } from "./timeout.ts";
import { LinkError, NativeError, type NativeTypes, type WireCredentials, type WireSession, type WireTransport } from "./wire.ts";

export interface LinkOptions<N extends NativeTypes> {
  codec: PlatformCodec<N>;
  transport: WireTransport<N>;
  credentials: WireCredentials;
  clock: Clock;
  requestTimeoutMs: number;
  connectTimeoutMs: number;
  retainedEvents: number;
  onProtocolError: (error: unknown) => void;
}

export class WireLink<N extends NativeTypes> {
  state: ConnectionState = "disconnected";
  lastError: ConnectorError | null = null;
  readonly journal: EventJournal;
  private readonly ingest: EventIngest<N["event"]>;
  private readonly listeners = new Set<(change: StateChange) => void>();
  private session: WireSession<N> | null = null;
  private opening: Promise<void> | null = null;
  private everConnected = false;
  /** Bumped by disconnect() so an attempt still in flight knows it was abandoned. */
  private generation = 0;

  constructor(private readonly options: LinkOptions<N>) {
    this.journal = new EventJournal(options.retainedEvents);
    this.ingest = new EventIngest((e) => options.codec.event.decode(e), this.journal, options.onProtocolError);
  }

  onStateChange(listener: (change: StateChange) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  connect(): Promise<void> {
    if (this.state === "connected") return Promise.resolve();
    this.opening ??= this.open().finally(() => (this.opening = null));
    return this.opening;
  }

  async disconnect(): Promise<void> {
    this.generation++;
    // A later connect() is a fresh start ("connecting"); the event cursor is kept, so streams can resume.
    this.everConnected = false;
    this.session?.close();
    this.session = null;
    this.ingest.detach();
    this.journal.endStreams();
    this.setState("disconnected", null);
  }

  /** The open session while connected (live quotes attach to it), else null. */
  get connectedSession(): WireSession<N> | null {
    return this.state === "connected" ? this.session : null;
  }

  async call<T>(request: (session: WireSession<N>) => Promise<T>): Promise<T> {
    const session = this.session;
    if (!session || this.state !== "connected") {
      // Refused credentials stay the answer until they change; anything else: the request was never sent.
      if (this.lastError?.code === "credentialsRefused") throw this.lastError;
      throw connectorErrors.notConnected(this.state);
    }
    try {
      return await withTimeout(request(session), this.options.requestTimeoutMs, this.options.clock);
    } catch (error) {
      throw this.toConnectorError(error) ?? error;
    }
  }

  private async open(): Promise<void> {
    const generation = this.generation;
    const { clock, connectTimeoutMs } = this.options;
    this.setState(this.everConnected ? "reconnecting" : "connecting", this.lastError);
    const slot: { session: WireSession<N> | null } = { session: null };
    const opening = this.options.transport.open(this.options.credentials, {
      onPacket: (packet) => {
        if (slot.session && slot.session === this.session) this.ingest.push(slot.session, packet);
      },
      onClose: () => {
        if (slot.session && slot.session === this.session) this.lost();
      },
    });
    try {
      const session = await withTimeout(opening, connectTimeoutMs, clock);
      slot.session = session;
      if (generation !== this.generation) {
        session.close();
        throw connectorErrors.notConnected("disconnected");
      }
      this.session = session;
      await withTimeout(this.ingest.attach(session), connectTimeoutMs, clock);
      if (this.session !== session) throw connectorErrors.connectionLost();
      this.everConnected = true;
      this.setState("connected", null);
    } catch (error) {
      const known = this.toConnectorError(error, connectTimeoutMs);
      const failure = known ?? connectorErrors.unreachable("Unexpected failure while connecting.");
      if (slot.session) slot.session.close();
      // A session that opens after we gave up must not stay open behind our back.
      else
        opening.then(
          (late) => late.close(),
          () => undefined,
        );
      if (this.session === slot.session) {
        this.session = null;
        this.ingest.detach();
      }
      if (generation === this.generation) this.setState("failed", failure);
      throw known ?? error;
    }
  }

  private lost(): void {
    this.session = null;
    this.ingest.detach();
    this.setState("reconnecting", connectorErrors.connectionLost());
  }

  /** The ConnectorError for a failure, or null for an unexpected one (a bug, rethrown as is). */
  private toConnectorError(error: unknown, timeoutMs = this.options.requestTimeoutMs): ConnectorError | null {
    if (error instanceof ConnectorError) return error;
    if (error instanceof NativeError) return this.options.codec.error.decode(error.native as N["error"]); // the link wraps only its codec's native errors
    if (error instanceof TimeoutError) return connectorErrors.timeout(timeoutMs);
    if (error instanceof LinkError) return error.kind === "closed" ? connectorErrors.connectionLost() : connectorErrors.unreachable();
    return null;
  }

  private setState(state: ConnectionState, error: ConnectorError | null): void {
    const previous = this.state;
    this.lastError = error;
    if (previous === state) return;
    this.state = state;
    const change: StateChange = { state, previous, error, at: this.options.clock.now() };
    for (const listener of this.listeners) {
      try {
        listener(change);
      } catch {
        // One faulty listener must not stop the others or the connector.
      }
    }
  }
}
