/**
 * The plugins a simulated server runs: a Flexible Leverage plugin of its flavour on MT4 and MT5
 * (Match-Trader has no server plugins), with its parameters kept as the platform keeps them, an
 * ordered list of name/value strings. The plugin's rules are a JSON `Rules` parameter, opaque
 * here; what they do is the rule engine's (core/flexibleLeverage).
 */
import { applyPluginUpdate, type TradePlatformType, type TradePlugin } from "../../../../core/trading/index.ts";
import { connectorErrors } from "../../errors.ts";
import { MT4_PLUGIN_NAME_MAX, MT4_PLUGIN_PARAMS_MAX, MT4_PLUGIN_VALUE_MAX } from "../../mt4/plugins.ts";
import { now, type EngineContext } from "./context.ts";

/** The Flexible Leverage package of each MetaTrader flavour (PROTOCOLS.md §4.4). */
export const FLEXIBLE_LEVERAGE: Readonly<Record<"MT4" | "MT5", { id: string; version: string }>> = {
  MT4: { id: "CPlugin.MT4Plugin.FlexibleLeverage", version: "1.25.0" },
  MT5: { id: "CPlugin.MT5Plugin.FlexibleLeverage", version: "1.0.1.12" },
};

/** The plugins a fresh simulated server of this platform runs. */
export function startingPlugins(platform: TradePlatformType, managerLogin: string): TradePlugin[] {
  if (platform === "MatchTrader") return [];
  const { id, version } = FLEXIBLE_LEVERAGE[platform];
  return [
    {
      id,
      file: `${id}.dll`,
      name: "Flexible Leverage",
      version,
      enabled: true,
      configurable: true,
      state: "running",
      parameters: [
        { name: "Managers", value: managerLogin },
        { name: "Rules", value: "[]" },
      ],
    },
  ];
}

export function listPlugins(ctx: EngineContext): TradePlugin[] {
  return [...ctx.state.plugins.values()].map((p) => structuredClone(p));
}

/**
 * Writes a plugin's enabled flag and parameters (the rest is the module's, not the manager's).
 * Refused as the platform would: an unknown plugin, parameters of one that takes none, and past
 * MT4's fixed-size fields.
 */
export function updatePlugin(ctx: EngineContext, wanted: TradePlugin, remark?: (before: TradePlugin, after: TradePlugin) => string | null): TradePlugin {
  const platform = ctx.flavour.platform;
  if (platform === "MatchTrader") throw noPlugins();
  const current = ctx.state.plugins.get(wanted.id);
  if (!current) throw connectorErrors.notFound(`The server runs no plugin "${wanted.id}".`);
  const parametersChanged = JSON.stringify(current.parameters) !== JSON.stringify(wanted.parameters);
  if (parametersChanged && !current.configurable)
    throw connectorErrors.rejected(
      "other",
      `Plugin "${current.id}" takes no settings from a manager connection; only the server's administrator can change them.`,
    );
  if (platform === "MT4") checkMt4Limits(wanted);
  const updated = applyPluginUpdate(current, { enabled: wanted.enabled, parameters: wanted.parameters });
  ctx.state.plugins.set(current.id, updated);
  const changes = [
    ...(current.enabled !== updated.enabled ? [updated.enabled ? "enabled" : "disabled"] : []),
    ...(parametersChanged ? ["parameters changed"] : []),
  ];
  const note = remark?.(current, updated);
  ctx.journal.write(
    now(ctx),
    note ? "warning" : "ok",
    `plugin '${current.file}': ${changes.length > 0 ? changes.join(", ") : "saved unchanged"}${note ? `; ${note}` : ""}`,
  );
  return structuredClone(updated);
}

/** Match-Trader's answer to any plugin call. */
export function noPlugins() {
  return connectorErrors.noPlugins("MatchTrader");
}

function checkMt4Limits(plugin: TradePlugin): void {
  if (plugin.parameters.length > MT4_PLUGIN_PARAMS_MAX)
    throw connectorErrors.rejected("other", `An MT4 plugin keeps at most ${MT4_PLUGIN_PARAMS_MAX} parameters; ${plugin.parameters.length} were sent.`);
  for (const p of plugin.parameters) {
    if (p.name.length > MT4_PLUGIN_NAME_MAX)
      throw connectorErrors.rejected("other", `MT4 keeps a plugin parameter's name in ${MT4_PLUGIN_NAME_MAX} characters; "${p.name.slice(0, 40)}" is longer.`);
    if (p.value.length > MT4_PLUGIN_VALUE_MAX)
      throw connectorErrors.rejected(
        "other",
        `MT4 keeps a plugin parameter's value in ${MT4_PLUGIN_VALUE_MAX} characters; the value of "${p.name}" has ${p.value.length}.`,
      );
  }
}
