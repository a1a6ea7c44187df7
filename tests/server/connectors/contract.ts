/**
 * The contract every TradePlatformConnector must pass. Run it with a harness for the connector
 * under test: `runConnectorContract("MT5 simulated", makeHarness)`. The simulated servers pass it
 * now; the MT5 Web API, Match-Trader Broker API and MT4 gateway connectors must pass it too.
 */
import { afterEach, beforeEach, describe } from "vitest";
import { accountContract } from "./contract/accounts.ts";
import { configContract } from "./contract/config.ts";
import { connectionContract } from "./contract/connection.ts";
import type { ConnectorHarness, MakeHarness } from "./contract/harness.ts";
import { moneyContract } from "./contract/money.ts";
import { ordersOnceContract } from "./contract/ordersOnce.ts";
import { pluginsContract } from "./contract/plugins.ts";
import { streamContract } from "./contract/stream.ts";
import { tradingContract } from "./contract/trading.ts";

export type { ConnectorHarness, MakeHarness } from "./contract/harness.ts";

export function runConnectorContract(name: string, makeHarness: MakeHarness): void {
  describe(`${name} connector contract`, () => {
    let harness: ConnectorHarness | undefined;
    const current = () => {
      if (!harness) throw new Error("harness not ready");
      return harness;
    };
    beforeEach(async () => {
      harness = await makeHarness();
      await harness.connector.connect();
    });
    afterEach(async () => {
      await harness?.close();
      harness = undefined;
    });

    describe("connection", () => connectionContract(current));
    describe("accounts, groups and symbols", () => accountContract(current));
    describe("balance operations", () => moneyContract(current));
    describe("orders, leverage and journal", () => tradingContract(current));
    describe("orders exactly once, and the platform's rules for them", () => ordersOnceContract(current));
    describe("live stream", () => streamContract(current));
    describe("server plugins", () => pluginsContract(current));
    describe("configuration writes", () => configContract(current));
  });
}
