/**
 * From a saved platform (its row) to what the runtime runs for it: the connector configuration
 * with the decrypted secret, or the reason it cannot connect at all (a real kind whose connector
 * does not exist yet, a secret this server's key cannot read).
 */
import type { FastifyBaseLogger } from "fastify";
import type { TradePlatformType } from "../../../../core/trading/index.ts";
import type { ConnectorConfig } from "../../../connectors/config.ts";
import type { ManagedPlatform } from "../../../connectors/manager.ts";
import type { StoredConnection, tradePlatforms } from "../../../db/tables/platforms.ts";
import { SecretUnreadable, type SecretCipher } from "../../../secrets/cipher.ts";
import { connectorConfigOf, type ConnectablePlatform } from "./connection.ts";

export type PlatformRow = typeof tradePlatforms.$inferSelect;

/** Every platform the runtime knows of, enabled or not. */
export interface KnownPlatform {
  id: string;
  organizationId: string;
  type: TradePlatformType;
  name: string;
  enable: boolean;
}

/** An enabled platform the connection manager keeps connected. */
export interface Managed extends ManagedPlatform {
  organizationId: string;
  type: TradePlatformType;
  /** Identity of the simulated server behind it (seed, size, rate, zone); a change restarts that server. */
  serverIdentity: string | null;
  timeZone: string;
}

export function knownOf(row: PlatformRow): KnownPlatform {
  return { id: row.id, organizationId: row.organizationId, type: row.type, name: row.name, enable: row.enable };
}

/** `before`: what runs for it now, if anything (a running simulated server keeps its zone offset). */
export function managedOf(
  row: PlatformRow,
  before: Managed | undefined,
  deps: { cipher: SecretCipher; log: FastifyBaseLogger },
): { managed: Managed } | { unavailable: string } {
  let secret: string | null = null;
  if (row.secretCiphertext) {
    try {
      secret = deps.cipher.decrypt(row.secretCiphertext, row.id);
    } catch (err) {
      if (!(err instanceof SecretUnreadable)) {
        // The key itself cannot be had (unreadable key file …): say so in the log, keep the others going.
        deps.log.error({ err, platformId: row.id }, "cannot read the secrets key");
        return { unavailable: "Toolbox cannot read its secrets key; the server log says why." };
      }
      deps.log.warn({ platformId: row.id }, "stored platform secret cannot be decrypted");
      return {
        unavailable: "Its stored password or API key cannot be decrypted with this server's SECRETS_KEY. Enter it again in the connection settings.",
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

/** What makes a simulated server the same server: a change to any of these restarts it from its seed. */
export function serverIdentity(platform: { id: string; type: TradePlatformType; timeZone: string; connection: StoredConnection }): string | null {
  const c = platform.connection;
  if (c.kind !== "simulated") return null;
  return JSON.stringify([platform.type, platform.timeZone, c.seed, c.accounts, c.tradeRate]);
}
