/**
 * Route validation of docs/requirements.md#r-routes: a route declares which of its parameters must be well formed;
 * a failure is a fatal error with the rule's status (404 unless it says otherwise) and the
 * message 'Page Not Found: {path}'. Pure rules: app/features/routing/validatedLoader.ts turns a
 * failure into React Router's error response.
 */

import { TRADE_PLATFORM_TYPES, type TradePlatformType } from "./trading/platform.ts";
import { UUID_PATTERN as UUID } from "./ids.ts";

export { TRADE_PLATFORM_TYPES, type TradePlatformType };

export type RouteParams = Readonly<Record<string, string | undefined>>;

/** A rule passes (true), fails with 404 (false), or fails with its own status. */
export type RouteRuleResult = boolean | { status: number };
export type RouteRule = (params: RouteParams) => RouteRuleResult;

export interface RouteValidationFailure {
  status: number;
  message: string;
}

/** A plugin id as servers report it: a file-like name, no path separators, no spaces. */
const PLUGIN_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
/** Dotted numbers with an optional pre-release tag: 1, 5.00, 2.1.3, 1.0.0-beta.2. */
const PLUGIN_VERSION = /^\d{1,9}(\.\d{1,9}){0,3}(-[0-9A-Za-z.]{1,32})?$/;
/** `{product}.MT4Plugin.FlexibleLeverage` / `{product}.MT5Plugin.FlexibleLeverage`; product is a vendor prefix. */
const PLUGIN_EDITOR = /^([A-Za-z][A-Za-z0-9_-]{0,63})\.(MT4|MT5)Plugin\.FlexibleLeverage$/;

export const isTradePlatformType = (v: string | undefined): v is TradePlatformType => (TRADE_PLATFORM_TYPES as readonly string[]).includes(v ?? "");
export const isUuid = (v: string | undefined): boolean => UUID.test(v ?? "");
export const isPluginId = (v: string | undefined): boolean => PLUGIN_ID.test(v ?? "");
export const isPluginVersion = (v: string | undefined): boolean => PLUGIN_VERSION.test(v ?? "");

/** The product prefix and platform type a plugin editor segment names, or null when malformed. */
export function parsePluginEditor(segment: string | undefined): { product: string; platform: "MT4" | "MT5" } | null {
  const match = PLUGIN_EDITOR.exec(segment ?? "");
  return match?.[1] && match[2] ? { product: match[1], platform: match[2] as "MT4" | "MT5" } : null;
}

/** The rules routes declare (by name, so a route module reads like its URL). */
export const routeRules = {
  /** `:tradePlatformType/:tradePlatformId`: a known type and a UUID. */
  tradePlatform: (p: RouteParams) => isTradePlatformType(p.tradePlatformType) && isUuid(p.tradePlatformId),
  /** Editors that exist only for some platform types (MT4MT5editor, MatchTraderEditor). */
  tradePlatformTypeIn:
    (...types: TradePlatformType[]): RouteRule =>
    (p) =>
      types.includes(p.tradePlatformType as TradePlatformType),
  /** `:pluginId/:pluginVersion/:pluginEditor`, the editor made for the platform's own type. */
  flexibleLeverageEditor: (p: RouteParams) => {
    const editor = parsePluginEditor(p.pluginEditor);
    return isPluginId(p.pluginId) && isPluginVersion(p.pluginVersion) && editor !== null && editor.platform === p.tradePlatformType;
  },
};

/** Runs the rules in order; the first failure wins. `path` is the URL path shown in the message. */
export function validateRoute(rules: readonly RouteRule[], params: RouteParams, path: string): RouteValidationFailure | null {
  for (const rule of rules) {
    const result = rule(params);
    if (result === true) continue;
    return { status: result === false ? 404 : result.status, message: pageNotFoundMessage(path) };
  }
  return null;
}

export function pageNotFoundMessage(path: string): string {
  return `Page Not Found: ${path}`;
}
