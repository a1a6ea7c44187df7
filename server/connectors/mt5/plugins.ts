/**
 * MT5 plugin instances as the MT5 Web API answers them (`/api/plugin/next`, `/api/plugin/get`,
 * `/api/plugin/add`), modelled on the Manager API's IMTConPlugin: an instance name, the server it
 * runs on, its module (the DLL), an enable flag, flags, and its parameters (IMTConParam
 * name/value). The module's own name and version (IMTConPluginModule) come alongside. Numbers are
 * strings, as the Web API writes them. docs/connectors.md, "Plugins".
 */
import type { TradePlugin } from "../../../core/trading/index.ts";
import type { Codec } from "../wire/codec.ts";

export interface Mt5PluginParam {
  Name: string;
  Value: string;
}

export interface Mt5ConPlugin {
  /** The instance's name (unique on the server). */
  Name: string;
  /** The trade server the instance runs on. */
  Server: string;
  /** The DLL the instance loads. */
  Module: string;
  /** "1" enabled, "0" disabled. */
  Enable: string;
  Flags: string;
  Parameters: Mt5PluginParam[];
  /** From the module (IMTConPluginModule): its name and version. */
  ModuleName: string;
  ModuleVersion: string;
}

/** `/api/plugin/add` with an existing instance's name replaces its settings. */
export type Mt5PluginUpdate = Omit<Mt5ConPlugin, "ModuleName" | "ModuleVersion">;

function decode(n: Mt5ConPlugin | Mt5PluginUpdate): TradePlugin {
  const enabled = n.Enable === "1";
  const module = "ModuleName" in n ? n : { ModuleName: n.Name, ModuleVersion: "" };
  return {
    id: n.Name,
    file: n.Module,
    name: module.ModuleName,
    version: module.ModuleVersion,
    enabled,
    // An MT5 instance's parameters are always the manager's to set.
    configurable: true,
    state: enabled ? "running" : "disabled",
    parameters: n.Parameters.map((p) => ({ name: p.Name, value: p.Value })),
  };
}

function update(p: TradePlugin): Mt5PluginUpdate {
  return {
    Name: p.id,
    Server: "1",
    Module: p.file,
    Enable: p.enabled ? "1" : "0",
    Flags: "0",
    Parameters: p.parameters.map((x) => ({ Name: x.name, Value: x.value })),
  };
}

export const mt5PluginCodecs: { plugin: Codec<TradePlugin, Mt5ConPlugin>; pluginUpdate: Codec<TradePlugin, Mt5PluginUpdate> } = {
  plugin: { encode: (p) => ({ ...update(p), ModuleName: p.name, ModuleVersion: p.version }), decode },
  pluginUpdate: { encode: update, decode },
};
