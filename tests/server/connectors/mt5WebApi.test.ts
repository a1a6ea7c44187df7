import { runConnectorContract } from "./contract.ts";
import { mt5WebApiHarness } from "./mt5WebApiHarness.ts";

runConnectorContract("MT5 Web API", mt5WebApiHarness());
