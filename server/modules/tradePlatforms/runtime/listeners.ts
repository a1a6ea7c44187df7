/**
 * Who hears about platforms: state changes (the live page), (re)connections with the new
 * connector (the accounts mirror), deletions. A listener that throws is logged and never stops
 * the others or the runtime.
 */
import type { FastifyBaseLogger } from "fastify";
import type { TradePlatformConnector } from "../../../connectors/connector.ts";
import type { PlatformRef, PlatformStateEvent } from "./types.ts";

type StateListener = (event: PlatformStateEvent) => void;
type ConnectedListener = (platform: PlatformRef, connector: TradePlatformConnector) => void;
type RemovedListener = (platformId: string) => void;

export class PlatformListeners {
  private readonly state = new Set<StateListener>();
  private readonly connected = new Set<ConnectedListener>();
  private readonly removed = new Set<RemovedListener>();

  constructor(private readonly log: FastifyBaseLogger) {}

  onState(listener: StateListener): () => void {
    this.state.add(listener);
    return () => this.state.delete(listener);
  }

  onConnected(listener: ConnectedListener): () => void {
    this.connected.add(listener);
    return () => this.connected.delete(listener);
  }

  onRemoved(listener: RemovedListener): () => void {
    this.removed.add(listener);
    return () => this.removed.delete(listener);
  }

  publishState(event: PlatformStateEvent): void {
    for (const listener of this.state) this.safely(() => listener(event));
  }

  publishConnected(platform: PlatformRef, connector: TradePlatformConnector, only?: ConnectedListener): void {
    for (const listener of only ? [only] : this.connected) this.safely(() => listener(platform, connector));
  }

  publishRemoved(platformId: string): void {
    for (const listener of this.removed) this.safely(() => listener(platformId));
  }

  clear(): void {
    this.state.clear();
    this.connected.clear();
    this.removed.clear();
  }

  private safely(fn: () => void): void {
    try {
      fn();
    } catch (err) {
      this.log.error({ err }, "trade platform listener failed");
    }
  }
}
