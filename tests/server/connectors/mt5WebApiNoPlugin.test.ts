import { runConnectorContract } from "./contract.ts";
import { mt5WebApiHarness } from "./mt5WebApiHarness.ts";

runConnectorContract("MT5 Web API without Toolbox's plugin", mt5WebApiHarness({}, { toolboxPlugin: false }));
