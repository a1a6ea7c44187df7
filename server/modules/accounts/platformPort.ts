/**
 * What the accounts area uses of the platforms runtime (`app.platforms`, server/modules/tradePlatforms/runtime/): the
 * live connector of an organization's platform, and word when a platform connects (that it went
 * away is on the event bus, `platformRemoved`).
 * The narrow slice is named here so the mirror and the balance operations can also be driven by
 * a test double; the real PlatformRuntime satisfies it.
 */
import type { FastifyInstance } from "fastify";
import type { TradePlatformConnector } from "../../connectors/connector.ts";
import type { PlatformRef } from "../../events/types.ts";

export type MirroredPlatform = PlatformRef;

export interface AccountsPlatformRuntime {
  /** NotFoundError for another organization's platform, ConflictError when disabled, UnavailableError when not connected. */
  connectorFor(organizationId: string, platformId: string): Promise<TradePlatformConnector>;
  /** Each time a platform (re)connects — at once for those already connected. */
  onConnected(listener: (platform: MirroredPlatform, connector: TradePlatformConnector) => void): () => void;
}

export function platformRuntimeOf(app: FastifyInstance): AccountsPlatformRuntime {
  return app.platforms;
}
