// @vitest-environment node
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { applyPluginUpdate, pluginUpdateProblem, type TradePlugin } from "../../core/trading/plugin";
import { mt4PluginCodecs, mt4PluginVersion, mt4PluginVersionText } from "../../server/connectors/mt4/plugins";
import { mt5PluginCodecs } from "../../server/connectors/mt5/plugins";
import { pluginList } from "../../server/connectors/mt5WebApi/plugins";
import { NativeError } from "../../server/connectors/wire/wire";
import { pluginEditorPath } from "../../app/features/plugins/editorPath";

const PLUGIN: TradePlugin = {
  id: "CPlugin.MT5Plugin.FlexibleLeverage",
  file: "CPlugin.MT5Plugin.FlexibleLeverage.dll",
  name: "Flexible Leverage",
  version: "1.0.1.12",
  enabled: true,
  configurable: true,
  state: "running",
  parameters: [
    { name: "Managers", value: "1000" },
    { name: "Rules", value: "[]" },
  ],
};

describe("plugins", () => {
  it("opens the Flexible Leverage editor of the platform's own type only, with the route's segments", () => {
    const platform = "9b2f3c1e-0a5b-4c8d-9e7f-1a2b3c4d5e6f";
    expect(pluginEditorPath("MT5", platform, PLUGIN)).toBe(
      `/tradePlatforms/MT5/${platform}/settings/plugins/CPlugin.MT5Plugin.FlexibleLeverage/1.0.1.12/CPlugin.MT5Plugin.FlexibleLeverage`,
    );
    expect(pluginEditorPath("MT4", platform, { id: "Broker.MT4Plugin.FlexibleLeverage", version: "1.25.0" })).toMatch(/\/Broker\.MT4Plugin\.FlexibleLeverage$/);
    expect(pluginEditorPath("MT4", platform, PLUGIN)).toBeNull();
    expect(pluginEditorPath("MT5", platform, { id: "CPlugin.MT5Plugin.GapHelper", version: "1.0" })).toBeNull();
    expect(pluginEditorPath("MT5", platform, { ...PLUGIN, version: "build 12" })).toBeNull();
  });

  it("applies an update: enabled drives the state, parameters are replaced as a whole", () => {
    expect(applyPluginUpdate(PLUGIN, { enabled: false })).toMatchObject({ enabled: false, state: "disabled", parameters: PLUGIN.parameters });
    expect(applyPluginUpdate(PLUGIN, { parameters: [{ name: "Rules", value: "x" }] }).parameters).toEqual([{ name: "Rules", value: "x" }]);
  });

  it("says why an update cannot be sent, in a sentence", () => {
    expect(pluginUpdateProblem({})).toMatch(/Say what to change/);
    expect(pluginUpdateProblem({ parameters: [{ name: " x", value: "" }] })).toMatch(/without spaces/);
    expect(
      pluginUpdateProblem({
        parameters: [
          { name: "a", value: "" },
          { name: "a", value: "" },
        ],
      }),
    ).toMatch(/given twice/);
    expect(pluginUpdateProblem({ enabled: true, parameters: PLUGIN.parameters })).toBeNull();
  });

  it("keeps a plugin whole through MT4's and MT5's shapes", () => {
    fc.assert(
      fc.property(
        fc.record({
          enabled: fc.boolean(),
          parameters: fc.array(fc.record({ name: fc.string({ minLength: 1, maxLength: 31 }), value: fc.string({ maxLength: 127 }) }), { maxLength: 32 }),
          version: fc.tuple(fc.nat(99), fc.nat(99), fc.nat(99)).map((v) => v.join(".")),
        }),
        ({ enabled, parameters, version }) => {
          const plugin: TradePlugin = {
            ...PLUGIN,
            id: "X.MT4Plugin.FlexibleLeverage",
            file: "X.MT4Plugin.FlexibleLeverage.dll",
            enabled,
            state: enabled ? "running" : "disabled",
            parameters,
            version,
          };
          if (Number(version.split(".")[0]) > 0) expect(mt4PluginCodecs.plugin.decode(mt4PluginCodecs.plugin.encode(plugin))).toEqual(plugin);
          expect(mt5PluginCodecs.plugin.decode(mt5PluginCodecs.plugin.encode({ ...plugin, id: "i", file: "m.dll" }))).toEqual({
            ...plugin,
            id: "i",
            file: "m.dll",
          });
        },
      ),
      { seed: 7, numRuns: 300 },
    );
    expect(mt4PluginVersion("1.25.0")).toBe(12_500);
    expect(mt4PluginVersionText(12_500)).toBe("1.25.0");
    expect(mt4PluginVersionText(125)).toBe("1.25");
  });
});

describe("an MT5 Web API without the plugin commands", () => {
  it("is a platform without the feature (rejected, in words), not a missing plugin; other failures go on as they are", async () => {
    const missing = pluginList(Promise.reject(new NativeError({ retcode: "13 Not found", message: "" })));
    await expect(missing).rejects.toMatchObject({ code: "rejected", message: expect.stringMatching(/does not offer its plugins' configuration/) });
    const other = new NativeError({ retcode: "8 Not enough permissions", message: "" });
    await expect(pluginList(Promise.reject(other))).rejects.toBe(other);
  });
});
