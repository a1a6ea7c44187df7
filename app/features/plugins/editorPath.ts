import { flexibleLeverageOf } from "@core/trading/plugin";
import { isPluginId, isPluginVersion } from "@core/routeValidation";

/**
 * The editor page of a plugin, where Toolbox has one: Flexible Leverage of the platform's own type,
 * `…/settings/plugins/{pluginId}/{pluginVersion}/{product}.MT5Plugin.FlexibleLeverage` (the route
 * validates the same, core/routeValidation.ts). Null for any other plugin: its parameters are
 * edited in the dialog.
 */
export function pluginEditorPath(platformType: string | undefined, platformId: string, plugin: { id: string; version: string }): string | null {
  const editor = flexibleLeverageOf(plugin.id);
  if (!editor || editor.platform !== platformType || !isPluginId(plugin.id) || !isPluginVersion(plugin.version)) return null;
  const segment = `${editor.product}.${editor.platform}Plugin.FlexibleLeverage`;
  return `/tradePlatforms/${platformType}/${platformId}/settings/plugins/${encodeURIComponent(plugin.id)}/${encodeURIComponent(plugin.version)}/${segment}`;
}
