/**
 * A platform's Flexible Leverage plugin seen as rules (docs/flexible-leverage.md "API"): its
 * settings read from its parameters (core/flexibleLeverage/parameters.ts) with warnings against the
 * server's groups and symbols, saved back through the connector's `updatePlugin` (audited with the
 * settings before and after), and the preview of rules as drafted over the platform's accounts
 * (./preview.ts). The server keeps the settings; Toolbox stores nothing but the audit record.
 */
import { FlexibleLeverageSettingsSchema, ruleWarnings, type FlexibleLeverageSettings, type RuleWarning } from "../../../core/flexibleLeverage/index.ts";
import {
  MT4_MAX_PARAMETERS,
  RULES_CHUNK,
  decodeSettingsParameters,
  encodeRulesText,
  encodeSettingsParameters,
  rulesTextOf,
} from "../../../core/flexibleLeverage/parameters.ts";
import { instantOfWallClock, wallClockOf } from "../../../core/flexibleLeverage/zonedTime.ts";
import type { FlexibleLeverageHistory, FlexibleLeverageView } from "../../../core/schemas/flexibleLeverage.ts";
import { flexibleLeverageOf, type Group, type PluginParameter, type TradePlugin, type TradeSymbol } from "../../../core/trading/index.ts";
import type { ServerTime, TradePlatformConnector } from "../../connectors/connector.ts";
import type { PlatformRow } from "../tradePlatforms/repository.ts";
import type { DbOrTx } from "../../db/client.ts";
import { NotFoundError, RefusedError, viaConnector } from "../../errors.ts";
import { recordAudit, type Actor } from "../audit/record.ts";
import { findPlatform } from "../tradePlatforms/repository.ts";
import { findRules, saveRules, savedSettings } from "./repository.ts";

export interface FlexibleLeverageDeps {
  db: DbOrTx;
  connectorFor(organizationId: string, platformId: string): Promise<TradePlatformConnector>;
}

/**
 * How the rules' windows are read for this platform. A simulated server keeps a fixed offset from
 * UTC (its plugin reads its own clock so), so the engine gets the server's local time in the UTC
 * zone; any other server is read in the platform's IANA zone.
 */
export interface EngineClock {
  timeZone: string;
  /** "Europe/Nicosia", or "UTC+02:00" for a simulated server. */
  zone: string;
  /** The instant the engine is given for the server's clock now. */
  now: number;
  /** The engine's instant for a wall-clock time of the server (ms as if UTC). */
  ofWallClock(wall: number): number;
  /** The server's wall clock at an engine instant, "2026-12-04T13:30". */
  wallText(at: number): string;
}

export interface LoadedPlugin {
  connector: TradePlatformConnector;
  plugin: TradePlugin;
  platformType: "MT4" | "MT5";
  clock: EngineClock;
  /** Who runs the rules: the server's plugin, or Toolbox for a server without it (./runner.ts). */
  runBy: "plugin" | "toolbox";
}

const wallText = (wall: number) => new Date(wall).toISOString().slice(0, 16);

function offsetText(minutes: number): string {
  const sign = minutes < 0 ? "-" : "+";
  const abs = Math.abs(minutes);
  return `UTC${sign}${String(Math.floor(abs / 60)).padStart(2, "0")}:${String(abs % 60).padStart(2, "0")}`;
}

/**
 * How the engine reads a platform's clock: a simulated server keeps a fixed offset from UTC (the
 * engine gets its local time in the UTC zone, as its plugin does); any other in the platform's IANA zone.
 */
export function engineClockOf(row: Pick<PlatformRow, "connection" | "timeZone">, time: ServerTime): EngineClock {
  if (row.connection.kind === "simulated") {
    const shift = time.timeZoneOffsetMinutes * 60_000;
    return { timeZone: "UTC", zone: offsetText(time.timeZoneOffsetMinutes), now: time.time + shift, ofWallClock: (wall) => wall, wallText };
  }
  const zone = row.timeZone;
  return {
    timeZone: zone,
    zone,
    now: time.time,
    ofWallClock: (wall) => instantOfWallClock(wall, zone),
    wallText: (at) => wallText(wallClockOf(at, zone)),
  };
}

/** What stands for the plugin on a server without one: the rules Toolbox keeps and runs (./runner.ts). */
function keptByToolbox(pluginId: string, parameters: PluginParameter[] | undefined): TradePlugin {
  return {
    id: pluginId,
    file: "",
    name: "Flexible Leverage (run by Toolbox)",
    version: "toolbox",
    enabled: true,
    configurable: true,
    state: "running",
    parameters: parameters ?? [
      { name: "Managers", value: "" },
      { name: "Rules", value: "[]" },
    ],
  };
}

/**
 * The platform (of this organization), its connector and its Flexible Leverage plugin; 404 when
 * the platform is missing or the id is not a Flexible Leverage plugin of its type. A server that
 * runs no such plugin has its rules kept and run by Toolbox (decision XXXX): they stand for it.
 */
export async function loadPlugin(deps: FlexibleLeverageDeps, organizationId: string, platformId: string, pluginId: string): Promise<LoadedPlugin> {
  const connector = await deps.connectorFor(organizationId, platformId);
  const row = await findPlatform(deps.db, organizationId, platformId);
  if (!row) throw new NotFoundError("No such trade platform in this organization.");
  const flavour = flexibleLeverageOf(pluginId);
  if (!flavour || flavour.platform !== connector.platform)
    throw new NotFoundError(`"${pluginId}" is not a Flexible Leverage plugin of this ${connector.platform} platform.`);
  const plugins = await viaConnector(() => connector.listPlugins());
  const onServer = plugins.find((p) => p.id === pluginId);
  // Another Flexible Leverage plugin of the server (another vendor prefix) runs its rules: this id is none of its.
  if (!onServer && plugins.some((p) => flexibleLeverageOf(p.id)?.platform === connector.platform))
    throw new NotFoundError(`The server runs no plugin "${pluginId}".`);
  const plugin = onServer ?? keptByToolbox(pluginId, (await findRules(deps.db, platformId))?.parameters);
  const time = await viaConnector(() => connector.serverTime());
  return { connector, plugin, platformType: flavour.platform, clock: engineClockOf(row, time), runBy: onServer ? "plugin" : "toolbox" };
}

/** A symbol as the masks read it: its MT5 path where it has one. */
export const symbolKey = (symbol: Pick<TradeSymbol, "name" | "path">) => (symbol.path ? `${symbol.path}\\${symbol.name}` : symbol.name);

/** What the rules' text may take on this platform: MT4 keeps 31 parameters of 127 characters for it (Managers takes one). */
function capacityOf(platformType: "MT4" | "MT5", plugin: TradePlugin): number | null {
  if (platformType !== "MT5") {
    const others = plugin.parameters.filter((p) => !/^(Managers|Rules(\.\d+)?)$/.test(p.name)).length;
    return (MT4_MAX_PARAMETERS - 1 - others) * RULES_CHUNK;
  }
  return null;
}

export async function serverNames(connector: TradePlatformConnector): Promise<{ groups: Group[]; symbols: TradeSymbol[] }> {
  const [groups, symbols] = await Promise.all([viaConnector(() => connector.listGroups()), viaConnector(() => connector.listSymbols())]);
  return { groups, symbols };
}

export function warningsFor(settings: FlexibleLeverageSettings, groups: Group[], symbols: TradeSymbol[], clock: EngineClock): RuleWarning[] {
  return ruleWarnings(settings, { groups: groups.map((g) => g.name), symbols: symbols.map(symbolKey), at: clock.now, timeZone: clock.timeZone });
}

export async function getSettings(deps: FlexibleLeverageDeps, organizationId: string, platformId: string, pluginId: string): Promise<FlexibleLeverageView> {
  const loaded = await loadPlugin(deps, organizationId, platformId, pluginId);
  return viewOf(loaded, loaded.plugin);
}

async function viewOf(loaded: LoadedPlugin, plugin: TradePlugin): Promise<FlexibleLeverageView> {
  const { groups, symbols } = await serverNames(loaded.connector);
  const decoded = decodeSettingsParameters(plugin.parameters);
  const settings: FlexibleLeverageSettings = decoded.ok ? decoded.settings : { managers: [], rules: [] };
  return {
    pluginId: plugin.id,
    version: plugin.version,
    enabled: plugin.enabled,
    platformType: loaded.platformType,
    settings,
    unreadable: decoded.ok ? null : { message: decoded.message, issues: decoded.issues },
    warnings: warningsFor(settings, groups, symbols, loaded.clock),
    groups: groups.map((g) => ({ name: g.name, currency: g.currency, defaultLeverage: g.defaultLeverage })),
    symbols: symbols.map(symbolKey),
    serverClock: { now: loaded.clock.wallText(loaded.clock.now), zone: loaded.clock.zone },
    capacity: { limit: capacityOf(loaded.platformType, plugin), used: encodeRulesText(settings).length },
    runBy: loaded.runBy,
  };
}

/**
 * Saves the settings into the plugin's parameters (its other parameters kept). What MT4 cannot
 * keep is refused (422) before anything is sent; the platform's own refusal is a 422 in its words.
 * Audited as `flexibleLeverage.changed` with the settings before and after.
 */
export async function saveSettings(
  deps: FlexibleLeverageDeps,
  actor: Actor,
  platformId: string,
  pluginId: string,
  settings: FlexibleLeverageSettings,
): Promise<FlexibleLeverageView> {
  const loaded = await loadPlugin(deps, actor.organizationId, platformId, pluginId);
  const { plugin, connector, platformType } = loaded;
  if (!plugin.configurable)
    throw new RefusedError(`Plugin "${plugin.id}" takes no settings from a manager connection; only the server's administrator can change them.`);
  const limit = capacityOf(platformType, plugin);
  const used = encodeRulesText(settings).length;
  if (limit !== null && used > limit)
    throw new RefusedError(
      `These rules take ${used.toLocaleString("en-US")} characters in the plugin's parameters; an MT4 plugin keeps at most ${limit.toLocaleString("en-US")} (${limit / RULES_CHUNK} parameters of ${RULES_CHUNK}). Remove or shorten some rules.`,
    );
  const managers = settings.managers.join(",");
  if (platformType === "MT4" && managers.length > RULES_CHUNK)
    throw new RefusedError(`The managers take ${managers.length} characters; MT4 keeps a parameter in ${RULES_CHUNK}. List fewer managers.`);
  const parameters = encodeSettingsParameters(settings, plugin.parameters);
  const after =
    loaded.runBy === "plugin"
      ? await viaConnector(() => connector.updatePlugin(plugin.id, { parameters }))
      : keptByToolbox(
          plugin.id,
          (await saveRules(deps.db, actor.organizationId, platformId, parameters, rulesTextOf(parameters) !== rulesTextOf(plugin.parameters))).parameters,
        );
  const before = decodeSettingsParameters(plugin.parameters);
  await recordAudit(deps.db, actor, {
    action: "flexibleLeverage.changed",
    targetType: "plugin",
    targetId: `${platformId}/${plugin.id}`,
    before: before.ok ? { settings: before.settings } : { unreadable: before.message, text: before.text },
    after: { settings },
  });
  return viewOf(loaded, after);
}

/**
 * The saves of the plugin's settings made from Toolbox (its audit records), newest first, each
 * with the settings it wrote: the editor loads one back to revert (previewed, then saved again).
 * Read from Toolbox's records alone: it answers while the platform is away.
 */
export async function settingsHistory(
  deps: FlexibleLeverageDeps,
  organizationId: string,
  platformId: string,
  pluginId: string,
): Promise<FlexibleLeverageHistory> {
  if (!(await findPlatform(deps.db, organizationId, platformId))) throw new NotFoundError("No such trade platform in this organization.");
  const rows = await savedSettings(deps.db, organizationId, `${platformId}/${pluginId}`, 50);
  const entries: FlexibleLeverageHistory["entries"] = [];
  for (const row of rows) {
    const parsed = FlexibleLeverageSettingsSchema.safeParse((row.after as { settings?: unknown } | null)?.settings);
    if (parsed.success) entries.push({ at: row.at.toISOString(), actorName: row.actorName, settings: parsed.data });
  }
  return { entries };
}
