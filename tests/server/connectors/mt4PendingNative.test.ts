/**
 * MT4's native pending-order answers, as the simulated MT4 server gives them in process (the
 * shapes the MT4 gateway wraps): each answer names the TradeTransaction it answers, open for a
 * placed order, modify for a change and delete for a cancel.
 */
import { afterEach, expect, it } from "vitest";
import { ManualClock } from "../../../server/connectors/clock.ts";
import { mt4Codec } from "../../../server/connectors/mt4/codec.ts";
import { MT4_CMD, MT4_REASON } from "../../../server/connectors/mt4/native.ts";
import { DEFAULT_MANAGER, SimulatedServer } from "../../../server/connectors/simulated/server.ts";
import { createSimulatedConnector } from "../../../server/connectors/simulated/connector.ts";
import { fundedAccount, uniqueId } from "./contract/helpers.ts";

const cleanups: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

it("answers a placed order as open, a change as modify and a cancel as delete", async () => {
  const clock = new ManualClock();
  const server = new SimulatedServer({ platform: "MT4", clock, seed: 7, accounts: 5, tradeRate: 0 });
  const connector = createSimulatedConnector(server);
  await connector.connect();
  cleanups.push(() => connector.disconnect());
  const login = Number(await fundedAccount(connector));
  server.engine.setQuote("EURUSD", 1.1, 1.10012);
  const session = await server.transport(mt4Codec({ timeZoneOffsetMinutes: server.timeZoneOffsetMinutes })).open(DEFAULT_MANAGER, {
    onPacket: () => undefined,
    onClose: () => undefined,
  });
  cleanups.push(() => session.close());
  const base = {
    login,
    order: 0,
    symbol: "EURUSD",
    cmd: MT4_CMD.buyLimit,
    volume: 0.1,
    price: 1.099,
    deviation: -1,
    sl: 0,
    tp: 0,
    comment: "",
    reason: MT4_REASON.dealer,
    expiration: 0,
  };
  const placed = await session.placePendingOrder({ ...base, request_id: uniqueId("p"), type: "open" });
  expect(placed.type).toBe("open");
  const modified = await session.modifyPendingOrder({ ...base, request_id: uniqueId("m"), type: "modify", order: placed.order, price: 1.098 });
  expect(modified).toMatchObject({ type: "modify", order: placed.order, price: 1.098 });
  const deleted = await session.cancelPendingOrder({ ...base, request_id: uniqueId("d"), type: "delete", order: placed.order });
  expect(deleted).toMatchObject({ type: "delete", order: placed.order });
});
