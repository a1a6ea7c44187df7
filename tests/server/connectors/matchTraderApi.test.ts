import { runConnectorContract } from "./contract.ts";
import { matchTraderApiHarness } from "./matchTraderApiHarness.ts";

runConnectorContract("Match-Trader Broker API", matchTraderApiHarness());
