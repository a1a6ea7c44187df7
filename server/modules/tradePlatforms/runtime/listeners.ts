/**
 * Who is handed a platform's live connector each time it (re)connects (the accounts mirror, the
 * trade feed). This stays in-process: a connector is a live object of this node and cannot cross
 * to another. What can — a platform's state, its removal — goes on the event bus
 * (server/events/, `platformState` and `platformRemoved`). A listener that throws is logged and
 * never stops the others or the runtime.
 */
import type { FastifyBaseLogger } from "fastify";
import type { TradePlatformConnector } from "../../../connectors/connector.ts";
import type { PlatformRef } from "../../../events/types.ts";

type ConnectedListener = (platform: PlatformRef, connector: TradePlatformConnector) => void;

export class ConnectedListeners {
  private readonly connected = new Set<ConnectedListener>();

  constructor(private readonly log: FastifyBaseLogger) {}

  add(listener: ConnectedListener): () => void {
    this.connected.add(listener);
    return () => this.connected.delete(listener);
  }

  publish(platform: PlatformRef, connector: TradePlatformConnector, only?: ConnectedListener): void {
    for (const listener of only ? [only] : this.connected) {
      try {
        listener(platform, connector);
      } catch (err) {
        this.log.error({ err, platformId: platform.id }, "trade platform listener failed");
      }
    }
  }

  clear(): void {
    this.connected.clear();
  }
}
