/**
 * Contract: server plugins (docs/connectors.md, "Plugins"). MT4 and MT5 servers run a Flexible
 * Leverage plugin of their flavour; the connector lists it, writes its parameters and its
 * enabled flag, and refuses a plugin the server does not run. Match-Trader has no plugins: the
 * capability says so and both calls are refused in a sentence.
 */
import { expect, it } from "vitest";
import type { TradePlugin } from "../../../../core/trading/index.ts";
import type { ConnectorHarness } from "./harness.ts";
import { expectConnectorError } from "./helpers.ts";

const FLEXIBLE_LEVERAGE = {
  MT4: { id: "CPlugin.MT4Plugin.FlexibleLeverage", version: "1.25.0" },
  MT5: { id: "CPlugin.MT5Plugin.FlexibleLeverage", version: "1.0.1.12" },
};

function flexibleLeverage(plugins: TradePlugin[], platform: "MT4" | "MT5"): TradePlugin {
  const plugin = plugins.find((p) => p.id === FLEXIBLE_LEVERAGE[platform].id);
  if (!plugin) throw new Error(`No Flexible Leverage plugin among ${plugins.map((p) => p.id).join(", ")}`);
  return plugin;
}

/** What the simulated server itself holds, read apart from the connector. */
function onServer(h: ConnectorHarness, id: string): TradePlugin | undefined {
  return h.simulation.engine.plugins().find((p) => p.id === id);
}

export function pluginsContract(h: () => ConnectorHarness): void {
  it("says whether the platform has plugins, and lists the server's Flexible Leverage plugin in the platform's terms", async () => {
    const { connector } = h();
    if (connector.platform === "MatchTrader") {
      expect(connector.capabilities.plugins).toBe(false);
      const error = await expectConnectorError(connector.listPlugins(), "rejected");
      expect(error.message).toMatch(/Match-Trader has no server plugins/);
      return;
    }
    const platform = connector.platform;
    expect(connector.capabilities.plugins).toBe(true);
    const plugin = flexibleLeverage(await connector.listPlugins(), platform);
    expect(plugin).toMatchObject({
      file: `${FLEXIBLE_LEVERAGE[platform].id}.dll`,
      version: FLEXIBLE_LEVERAGE[platform].version,
      enabled: true,
      configurable: true,
      state: "running",
    });
    expect(plugin.parameters.map((p) => p.name)).toEqual(["Managers", "Rules"]);
    expect(plugin).toEqual(onServer(h(), plugin.id));
  });

  it("writes a plugin's parameters as an ordered list, read back through the connector and on the server", async () => {
    const harness = h();
    const { connector } = harness;
    if (connector.platform === "MatchTrader") {
      await expectConnectorError(connector.updatePlugin("CPlugin.MT5Plugin.FlexibleLeverage", { parameters: [] }), "rejected");
      return;
    }
    const { id } = FLEXIBLE_LEVERAGE[connector.platform];
    const parameters = [
      { name: "Rules", value: '[{"name":"Gold"}]' },
      { name: "Managers", value: "1000,1001" },
      { name: "LogLevel", value: "2" },
    ];
    const updated = await connector.updatePlugin(id, { parameters });
    expect(updated.parameters).toEqual(parameters);
    expect(flexibleLeverage(await connector.listPlugins(), connector.platform).parameters).toEqual(parameters);
    expect(onServer(harness, id)?.parameters).toEqual(parameters);
    // The server's journal says so, as MetaTrader's does.
    const lines = harness.simulation.engine.journal(0, Number.MAX_SAFE_INTEGER, { text: "plugin" }, 100);
    expect(lines.at(-1)?.message).toMatch(/parameters changed/);
  });

  it("disables and enables a plugin, its parameters untouched", async () => {
    const harness = h();
    const { connector } = harness;
    if (connector.platform === "MatchTrader") {
      await expectConnectorError(connector.updatePlugin("CPlugin.MT5Plugin.FlexibleLeverage", { enabled: false }), "rejected");
      return;
    }
    const { id } = FLEXIBLE_LEVERAGE[connector.platform];
    const before = flexibleLeverage(await connector.listPlugins(), connector.platform);
    const off = await connector.updatePlugin(id, { enabled: false });
    expect(off).toMatchObject({ enabled: false, state: "disabled", parameters: before.parameters });
    expect(onServer(harness, id)).toMatchObject({ enabled: false, state: "disabled" });
    const on = await connector.updatePlugin(id, { enabled: true });
    expect(on).toMatchObject({ enabled: true, state: "running" });
    expect(onServer(harness, id)?.enabled).toBe(true);
  });

  it("refuses a plugin the server does not run, and parameters no platform takes, changing nothing", async () => {
    const harness = h();
    const { connector } = harness;
    if (connector.platform === "MatchTrader") return;
    const { id } = FLEXIBLE_LEVERAGE[connector.platform];
    const before = onServer(harness, id);
    const error = await expectConnectorError(connector.updatePlugin("CPlugin.MT5Plugin.NoSuchThing", { enabled: false }), "notFound");
    expect(error.message).toMatch(/NoSuchThing/);
    await expectConnectorError(
      connector.updatePlugin(id, {
        parameters: [
          { name: "Rules", value: "[]" },
          { name: "Rules", value: "{}" },
        ],
      }),
      "invalidRequest",
    );
    expect(onServer(harness, id)).toEqual(before);
  });

  it("refuses what the platform cannot keep in its own words (MT4: a value past its 127 characters)", async () => {
    const harness = h();
    const { connector } = harness;
    if (connector.platform !== "MT4") return;
    const { id } = FLEXIBLE_LEVERAGE.MT4;
    const error = await expectConnectorError(connector.updatePlugin(id, { parameters: [{ name: "Rules", value: "x".repeat(128) }] }), "rejected");
    expect(error.message).toMatch(/127 characters/);
    expect(onServer(harness, id)?.parameters.find((p) => p.name === "Rules")?.value).toBe("[]");
  });
}
