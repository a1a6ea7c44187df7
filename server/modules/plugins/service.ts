/**
 * A platform's plugins, read and changed through its connector (the server keeps them; Toolbox
 * stores nothing but the audit record of a change). docs/connectors.md, "Plugins".
 */
import type { PluginUpdate, TradePlugin } from "../../../core/trading/index.ts";
import type { PluginList } from "../../../core/schemas/plugins.ts";
import type { TradePlatformConnector } from "../../connectors/connector.ts";
import { connectorErrors } from "../../connectors/errors.ts";
import type { DbOrTx } from "../../db/client.ts";
import { NotFoundError, viaConnector } from "../../errors.ts";
import { recordAudit, type Actor } from "../audit/record.ts";

export interface PluginsDeps {
  db: DbOrTx;
  connectorFor(organizationId: string, platformId: string): Promise<TradePlatformConnector>;
}

/** A parameter whose value the audit log must not keep (a password or a key a plugin is given). */
const SECRET_NAME = /pass|secret|token|api.?key|private/i;

export async function listPlugins(deps: PluginsDeps, organizationId: string, platformId: string): Promise<PluginList> {
  const connector = await deps.connectorFor(organizationId, platformId);
  // A platform without plugins answers with the flag and why, not an empty list that looks like "none installed".
  if (!connector.capabilities.plugins) return { supported: false, message: connectorErrors.noPlugins(connector.platform).message, plugins: [] };
  return { supported: true, message: null, plugins: await viaConnector(() => connector.listPlugins()) };
}

/** The platform first (its refusal changes nothing and records nothing), then the audit record of what changed. */
export async function changePlugin(deps: PluginsDeps, actor: Actor, platformId: string, pluginId: string, update: PluginUpdate): Promise<TradePlugin> {
  const connector = await deps.connectorFor(actor.organizationId, platformId);
  const before = (await viaConnector(() => connector.listPlugins())).find((p) => p.id === pluginId);
  if (!before) throw new NotFoundError(`The server runs no plugin "${pluginId}".`);
  const after = await viaConnector(() => connector.updatePlugin(pluginId, update));
  await recordAudit(deps.db, actor, {
    action: update.enabled !== undefined && before.enabled !== after.enabled ? (after.enabled ? "plugin.enabled" : "plugin.disabled") : "plugin.changed",
    targetType: "plugin",
    targetId: `${platformId}/${pluginId}`,
    before: audited(before),
    after: audited(after),
  });
  return after;
}

function audited(plugin: TradePlugin) {
  return {
    version: plugin.version,
    enabled: plugin.enabled,
    parameters: plugin.parameters.map((p) => ({ name: p.name, value: SECRET_NAME.test(p.name) ? "(not recorded)" : p.value })),
  };
}
