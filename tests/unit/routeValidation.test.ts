// @vitest-environment node
import { describe, expect, it } from "vitest";
import { isPluginId, isPluginVersion, isTradePlatformType, isUuid, parsePluginEditor, routeRules, validateRoute, type RouteRule } from "@core/routeValidation";
import { validatedLoader } from "~/features/routing/validatedLoader";

const ID = "8b0e4c38-3a0e-4f53-9b5c-2b1f7c9e0a11";

describe("route parameters (docs/requirements.md#r-routes)", () => {
  it("tradePlatformType is MT4, MT5 or MatchTrader, exactly", () => {
    for (const ok of ["MT4", "MT5", "MatchTrader"]) expect(isTradePlatformType(ok)).toBe(true);
    for (const bad of ["mt4", "MT6", "Matchtrader", "MatchTrader ", "", undefined]) expect(isTradePlatformType(bad)).toBe(false);
  });

  it("tradePlatformId is a UUID", () => {
    expect(isUuid(ID)).toBe(true);
    expect(isUuid(ID.toUpperCase())).toBe(true);
    for (const bad of ["123", `${ID}x`, ID.replace(/-/g, ""), "../settings", "", undefined]) expect(isUuid(bad)).toBe(false);
  });

  it("pluginId and pluginVersion are well formed", () => {
    for (const ok of ["flexible-leverage", "FlexLev64.dll", "42"]) expect(isPluginId(ok)).toBe(true);
    for (const bad of ["", ".hidden", "a/b", "a b", "x".repeat(129)]) expect(isPluginId(bad)).toBe(false);
    for (const ok of ["1", "5.00", "2.1.3", "1.0.0-beta.2", "1.2.3.4"]) expect(isPluginVersion(ok)).toBe(true);
    for (const bad of ["", "v1", "1.", "1..2", "1.2.3.4.5", "latest"]) expect(isPluginVersion(bad)).toBe(false);
  });

  it("plugin editor names end in .MT4Plugin.FlexibleLeverage or .MT5Plugin.FlexibleLeverage after a product prefix", () => {
    expect(parsePluginEditor("Toolbox.MT4Plugin.FlexibleLeverage")).toEqual({ product: "Toolbox", platform: "MT4" });
    expect(parsePluginEditor("Acme_Tech.MT5Plugin.FlexibleLeverage")).toEqual({ product: "Acme_Tech", platform: "MT5" });
    for (const bad of [
      ".MT4Plugin.FlexibleLeverage",
      "Acme.MT6Plugin.FlexibleLeverage",
      "Acme.MT4Plugin.Other",
      "Acme.MT4Plugin.FlexibleLeverage.x",
      "a/b.MT4Plugin.FlexibleLeverage",
    ]) {
      expect(parsePluginEditor(bad)).toBeNull();
    }
  });
});

describe("route rules", () => {
  const platform = { tradePlatformType: "MT5", tradePlatformId: ID };

  it("trade platform routes need a known type and a UUID", () => {
    expect(routeRules.tradePlatform(platform)).toBe(true);
    expect(routeRules.tradePlatform({ ...platform, tradePlatformType: "MT6" })).toBe(false);
    expect(routeRules.tradePlatform({ ...platform, tradePlatformId: "42" })).toBe(false);
  });

  it("an editor exists only for its platform types", () => {
    expect(routeRules.tradePlatformTypeIn("MT4", "MT5")(platform)).toBe(true);
    expect(routeRules.tradePlatformTypeIn("MatchTrader")(platform)).toBe(false);
  });

  it("MT4 plugin editors only on MT4 platforms, MT5 ones only on MT5", () => {
    const plugin = { pluginId: "flex", pluginVersion: "1.0" };
    const rule = routeRules.flexibleLeverageEditor;
    expect(rule({ ...plugin, tradePlatformType: "MT5", pluginEditor: "Acme.MT5Plugin.FlexibleLeverage" })).toBe(true);
    expect(rule({ ...plugin, tradePlatformType: "MT4", pluginEditor: "Acme.MT4Plugin.FlexibleLeverage" })).toBe(true);
    expect(rule({ ...plugin, tradePlatformType: "MT4", pluginEditor: "Acme.MT5Plugin.FlexibleLeverage" })).toBe(false);
    expect(rule({ ...plugin, tradePlatformType: "MatchTrader", pluginEditor: "Acme.MT5Plugin.FlexibleLeverage" })).toBe(false);
    expect(rule({ ...plugin, pluginVersion: "x", tradePlatformType: "MT5", pluginEditor: "Acme.MT5Plugin.FlexibleLeverage" })).toBe(false);
  });
});

describe("validateRoute", () => {
  it("passes when every rule passes", () => {
    expect(validateRoute([() => true, () => true], {}, "/x")).toBeNull();
  });

  it("fails with 404 and 'Page Not Found: {path}' by default", () => {
    expect(validateRoute([() => true, () => false], {}, "/tradePlatforms/XX/1/settings")).toEqual({
      status: 404,
      message: "Page Not Found: /tradePlatforms/XX/1/settings",
    });
  });

  it("fails with the status a rule returns; the first failure wins", () => {
    const forbidden: RouteRule = () => ({ status: 403 });
    expect(validateRoute([forbidden, () => false], {}, "/p")).toEqual({ status: 403, message: "Page Not Found: /p" });
  });
});

describe("validatedLoader (a route's validation step)", () => {
  const run = (loader: ReturnType<typeof validatedLoader>, params: Record<string, string>, url: string) => {
    try {
      return loader({ params, request: new Request(`http://localhost${url}`) });
    } catch (thrown) {
      return thrown;
    }
  };

  it("returns null when the route is valid", () => {
    const loader = validatedLoader(routeRules.tradePlatform);
    expect(run(loader, { tradePlatformType: "MT4", tradePlatformId: ID }, `/tradePlatforms/MT4/${ID}/settings`)).toBeNull();
  });

  it("throws an error response with the status and the message naming the (decoded) path", () => {
    const loader = validatedLoader(routeRules.tradePlatform);
    const thrown = run(loader, { tradePlatformType: "MT 4", tradePlatformId: ID }, `/tradePlatforms/MT%204/${ID}/settings`);
    // React Router's data(): the root error boundary receives it as an error response with this status.
    expect(thrown).toMatchObject({
      type: "DataWithResponseInit",
      init: { status: 404 },
      data: { kind: "route-validation", message: `Page Not Found: /tradePlatforms/MT 4/${ID}/settings` },
    });
  });
});
