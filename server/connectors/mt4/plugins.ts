/**
 * MT4 server plugins as the Manager API keeps them (PluginsGet / CfgRequestPlugin answer
 * ConPluginParam records; CfgUpdatePlugin takes a ConPlugin with its PluginCfg array): a DLL
 * file, its PluginInfo (name, an integer version, copyright), the enabled and configurable flags,
 * and up to MT4_PLUGIN_PARAMS_MAX name/value pairs in fixed-size fields.
 */
import type { PluginParameter, TradePlugin } from "../../../core/trading/index.ts";
import type { Codec } from "../wire/codec.ts";

/** PluginCfg holds `char name[32]` and `char value[128]`, NUL-terminated: 31 and 127 characters. */
export const MT4_PLUGIN_NAME_MAX = 31;
export const MT4_PLUGIN_VALUE_MAX = 127;
/** The most parameters one MT4 plugin keeps. */
export const MT4_PLUGIN_PARAMS_MAX = 32;

export interface Mt4PluginInfo {
  name: string;
  /** An unsigned int; the gateway writes a dotted version a.b.c as a·10000 + b·100 + c (each part below 100). */
  version: number;
  copyright: string;
}

export interface Mt4ConPlugin {
  /** The DLL's file name in the server's plugins folder. */
  file: string;
  info: Mt4PluginInfo;
  enabled: 0 | 1;
  /** Its parameters can be changed through the Manager API. */
  configurable: 0 | 1;
  manager_access: 0 | 1;
}

export interface Mt4PluginCfg {
  name: string;
  value: string;
}

/** ConPluginParam: a plugin with its parameters (PluginsGet, CfgRequestPlugin). */
export interface Mt4ConPluginParam {
  plugin: Mt4ConPlugin;
  params: Mt4PluginCfg[];
  total: number;
}

/** CfgUpdatePlugin(const ConPlugin*, const PluginCfg* parupd, int total). */
export type Mt4PluginUpdate = Mt4ConPluginParam;

/** "1.25.0" → 12500; a version MT4 cannot hold in its integer is refused. */
export function mt4PluginVersion(version: string): number {
  const parts = version.split(".").map(Number);
  if (parts.length > 3 || parts.some((p) => !Number.isInteger(p) || p < 0 || p > 99))
    throw new Error(`An MT4 plugin version is at most three parts below 100 each (${version}).`);
  const [major = 0, minor = 0, patch = 0] = parts;
  return major * 10_000 + minor * 100 + patch;
}

/** 12500 → "1.25.0"; a small number, as older plugins write it (125), → "1.25". */
export function mt4PluginVersionText(version: number): string {
  if (version < 10_000) return `${Math.floor(version / 100)}.${version % 100}`;
  return `${Math.floor(version / 10_000)}.${Math.floor(version / 100) % 100}.${version % 100}`;
}

const DLL = /\.dll$/i;

function encode(p: TradePlugin): Mt4ConPluginParam {
  const params = p.parameters.map((x) => ({ name: x.name, value: x.value }));
  return {
    plugin: {
      file: p.file,
      info: { name: p.name, version: mt4PluginVersion(p.version), copyright: "" },
      enabled: p.enabled ? 1 : 0,
      configurable: p.configurable ? 1 : 0,
      manager_access: p.configurable ? 1 : 0,
    },
    params,
    total: params.length,
  };
}

function decode(n: Mt4ConPluginParam): TradePlugin {
  const enabled = n.plugin.enabled === 1;
  const parameters: PluginParameter[] = n.params.slice(0, n.total).map((x) => ({ name: x.name, value: x.value }));
  return {
    id: n.plugin.file.replace(DLL, ""),
    file: n.plugin.file,
    name: n.plugin.info.name,
    version: mt4PluginVersionText(n.plugin.info.version),
    enabled,
    configurable: n.plugin.configurable === 1,
    state: enabled ? "running" : "disabled",
    parameters,
  };
}

export const mt4PluginCodecs: { plugin: Codec<TradePlugin, Mt4ConPluginParam>; pluginUpdate: Codec<TradePlugin, Mt4PluginUpdate> } = {
  plugin: { encode, decode },
  pluginUpdate: { encode, decode },
};
