/**
 * One idea: the gateway's plugin operations, named after the Manager API's. `CfgRequestPlugin`
 * (request mode) and `PluginsGet` (the pumping cache; here the same, read now) answer every
 * ConPluginParam; `CfgUpdatePlugin` takes a ConPlugin with its PluginCfg array and `total`, as
 * CfgUpdatePlugin(cfg, parupd, total) does, and answers the plugin as it now is (the gateway's
 * addition: the Manager API answers a return code only). docs/connectors.md, "Plugins".
 */
import type { Mt4Native } from "../../connectors/mt4/native.ts";
import type { Mt4PluginUpdate } from "../../connectors/mt4/plugins.ts";
import { MT4_GATEWAY_RET } from "../../connectors/mt4Gateway/format.ts";
import type { WireSession } from "../../connectors/wire/wire.ts";
import { isRecord } from "../common/https.ts";
import { CommandError } from "./orders.ts";

/** The answer to a plugin operation, or null when `path` is not one. */
export async function pluginCommand(path: string, body: Record<string, unknown>, session: WireSession<Mt4Native>): Promise<Record<string, unknown> | null> {
  switch (path) {
    case "/api/CfgRequestPlugin":
    case "/api/PluginsGet":
      return { plugins: await session.listPlugins() };
    case "/api/CfgUpdatePlugin":
      return { plugin: await session.updatePlugin(update(body)) };
    default:
      return null;
  }
}

function update(body: Record<string, unknown>): Mt4PluginUpdate {
  const invalid = () => new CommandError(MT4_GATEWAY_RET.invalidData, "CfgUpdatePlugin takes plugin (a ConPlugin), params (PluginCfg name/value) and total.");
  const plugin = body.plugin;
  if (!isRecord(plugin) || typeof plugin.file !== "string" || plugin.file === "" || !isRecord(plugin.info)) throw invalid();
  const flag = (v: unknown): 0 | 1 => {
    if (v !== 0 && v !== 1) throw invalid();
    return v;
  };
  const info = plugin.info;
  if (typeof info.name !== "string" || typeof info.version !== "number") throw invalid();
  const params = body.params ?? [];
  const total = body.total ?? (Array.isArray(params) ? params.length : -1);
  if (!Array.isArray(params) || typeof total !== "number" || !Number.isInteger(total) || total < 0 || total > params.length) throw invalid();
  return {
    plugin: {
      file: plugin.file,
      info: { name: info.name, version: info.version, copyright: typeof info.copyright === "string" ? info.copyright : "" },
      enabled: flag(plugin.enabled),
      configurable: flag(plugin.configurable),
      manager_access: flag(plugin.manager_access ?? 0),
    },
    // Only the first `total` entries count, as in the Manager API.
    params: params.slice(0, total).map((p: unknown) => {
      if (!isRecord(p) || typeof p.name !== "string" || typeof p.value !== "string") throw invalid();
      return { name: p.name, value: p.value };
    }),
    total,
  };
}
