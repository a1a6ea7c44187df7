/**
 * A server plugin as Toolbox shows it, whatever the platform: an MT4 plugin (ConPlugin: a DLL
 * file with its PluginInfo and up to 32 PluginCfg name/value pairs) or an MT5 plugin instance
 * (IMTConPlugin: an instance name over a module, with its parameters). Match-Trader has no
 * server plugins (docs/connectors.md, "Plugins").
 */

/** One parameter, as the platforms keep them: a name and a string value, in the server's order. */
export interface PluginParameter {
  name: string;
  value: string;
}

/** What the server says of a plugin: running (enabled and loaded) or disabled by its manager. */
export type PluginState = "running" | "disabled";

export interface TradePlugin {
  /**
   * The plugin's id on the server: the MT4 file name without `.dll`, the MT5 instance name. The
   * Flexible Leverage editor's route is keyed by it (`{product}.MT4Plugin.FlexibleLeverage`).
   */
  id: string;
  /** The file the server loads: MT4's plugin file, MT5's module. */
  file: string;
  /** The name the plugin reports (MT4 PluginInfo.name; MT5: the module's name). */
  name: string;
  /** Dotted version ("1.25.0", "1.0.1.12"). */
  version: string;
  enabled: boolean;
  /** Its parameters can be changed from a manager connection (MT4 `configurable`; MT5 instances always). */
  configurable: boolean;
  state: PluginState;
  parameters: PluginParameter[];
}

/** A change to one plugin: enable or disable it, and/or replace its parameters (the whole ordered list). */
export interface PluginUpdate {
  enabled?: boolean;
  parameters?: PluginParameter[];
}

/** The plugin with `update` applied (state follows the enabled flag). */
export function applyPluginUpdate(plugin: TradePlugin, update: PluginUpdate): TradePlugin {
  const enabled = update.enabled ?? plugin.enabled;
  return {
    ...plugin,
    enabled,
    state: enabled ? "running" : "disabled",
    parameters: (update.parameters ?? plugin.parameters).map((p) => ({ name: p.name, value: p.value })),
  };
}

/** The product prefix and platform of a Flexible Leverage plugin id (`CPlugin.MT5Plugin.FlexibleLeverage`), else null. */
export function flexibleLeverageOf(pluginId: string): { product: string; platform: "MT4" | "MT5" } | null {
  const match = /^([A-Za-z][A-Za-z0-9_-]{0,63})\.(MT4|MT5)Plugin\.FlexibleLeverage$/.exec(pluginId);
  return match?.[1] && match[2] ? { product: match[1], platform: match[2] as "MT4" | "MT5" } : null;
}

/** Bounds every platform shares; each platform checks its own again (MT4's fields are far smaller). */
export const PLUGIN_PARAMETER_NAME_MAX = 64;
export const PLUGIN_PARAMETER_VALUE_MAX = 65_536;
export const PLUGIN_PARAMETERS_MAX = 128;

/** Why a plugin update cannot be sent to any platform (a sentence), or null when it can. */
export function pluginUpdateProblem(update: PluginUpdate): string | null {
  if (update.enabled === undefined && update.parameters === undefined) return "Say what to change: enabled, parameters or both.";
  if (update.enabled !== undefined && typeof update.enabled !== "boolean") return "enabled is true or false.";
  if (update.parameters === undefined) return null;
  if (!Array.isArray(update.parameters)) return "parameters is a list of name/value pairs.";
  if (update.parameters.length > PLUGIN_PARAMETERS_MAX) return `A plugin takes at most ${PLUGIN_PARAMETERS_MAX} parameters.`;
  const seen = new Set<string>();
  for (const p of update.parameters) {
    if (typeof p?.name !== "string" || typeof p.value !== "string") return "Each parameter has a name and a value, both text.";
    if (p.name.trim() === "" || p.name !== p.name.trim() || p.name.length > PLUGIN_PARAMETER_NAME_MAX)
      return `A parameter name is 1 to ${PLUGIN_PARAMETER_NAME_MAX} characters, without spaces around it.`;
    if (p.value.length > PLUGIN_PARAMETER_VALUE_MAX) return `The value of "${p.name}" is longer than ${PLUGIN_PARAMETER_VALUE_MAX} characters.`;
    if (seen.has(p.name)) return `The parameter "${p.name}" is given twice.`;
    seen.add(p.name);
  }
  return null;
}
