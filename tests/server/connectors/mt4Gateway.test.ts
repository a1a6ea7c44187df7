import { runConnectorContract } from "./contract.ts";
import { mt4GatewayHarness } from "./mt4GatewayHarness.ts";

runConnectorContract("MT4 gateway", mt4GatewayHarness());
