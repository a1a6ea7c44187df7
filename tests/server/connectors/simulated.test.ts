import { runConnectorContract } from "./contract.ts";
import { simulatedHarness } from "./simulatedHarness.ts";

runConnectorContract("Simulated MT4", simulatedHarness("MT4"));
runConnectorContract("Simulated MT5", simulatedHarness("MT5"));
runConnectorContract("Simulated Match-Trader", simulatedHarness("MatchTrader"));
