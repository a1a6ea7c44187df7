/**
 * The Match-Trader order journal in the database (DbOrderJournal), as the platforms runtime gives
 * it to the connector: a Toolbox process that restarts (a new connector and a new journal object
 * over the same database) recognises the orders its previous process sent, and never repeats one.
 */
import { afterEach, expect, it } from "vitest";
import { organizations, tradePlatforms } from "../../../server/db/schema.ts";
import { DbOrderJournal } from "../../../server/modules/tradePlatforms/runtime/orderJournalRepository.ts";
import { operationTag } from "../../../server/connectors/operationOnce.ts";
import { describeEachDb, openDatabaseOf, type TestDatabase } from "../../helpers/eachDb.ts";
import { expectConnectorError, fundedAccount, uniqueId } from "./contract/helpers.ts";
import { matchTraderApiHarness, REQUEST_TIMEOUT_MS, type MatchTraderApiHarness } from "./matchTraderApiHarness.ts";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describeEachDb("Match-Trader orders journalled in the database", (kind) => {
  async function setup(): Promise<MatchTraderApiHarness> {
    const database: TestDatabase = await openDatabaseOf(kind);
    cleanups.push(() => database.drop());
    const [org] = await database.db.insert(organizations).values({ name: "Journal Ltd" }).returning();
    const [platform] = await database.db.insert(tradePlatforms).values({ organizationId: org!.id, type: "MatchTrader", name: "MT API" }).returning();
    // Each connector gets its own journal object, as each Toolbox process would: only the database is shared.
    const h = await matchTraderApiHarness({ accounts: 20 }, () => new DbOrderJournal(database.db, platform!.id))();
    cleanups.push(() => h.close());
    await h.connector.connect();
    return h;
  }

  it("a restarted Toolbox answers an open, a partial close whose answer never came, and a refusal from the journal, and trades nothing again", async () => {
    const h = await setup();
    const login = await fundedAccount(h.connector);
    const order = { requestId: uniqueId("open"), login, symbol: "EURUSD", side: "buy" as const, volume: 1000 };
    const opened = await h.connector.placeOrder(order);
    await h.advance(1000);
    h.protocolServer.faults.slowNextOrder(REQUEST_TIMEOUT_MS * 2);
    const part = { requestId: uniqueId("part"), positionId: opened.positionId, volume: 300 };
    const outcome = expectConnectorError(h.connector.closePosition(part), "timeout");
    await h.advance(REQUEST_TIMEOUT_MS + 1);
    await outcome;
    for (let i = 0; i < 4; i++) await h.advance(REQUEST_TIMEOUT_MS * 2);
    const poor = { requestId: uniqueId("poor"), login, symbol: "EURUSD", side: "buy" as const, volume: 1_000_000 };
    const refused = await expectConnectorError(h.connector.placeOrder(poor), "rejected");

    const restarted = await h.restarted();
    expect(await restarted.placeOrder(order)).toEqual(opened);
    const done = await restarted.closePosition(part);
    expect(done.volume).toBe(300);
    expect((await restarted.openPositions(login)).map((p) => [p.id, p.volume, p.tag])).toEqual([[opened.positionId, 700, operationTag(order.requestId)]]);
    expect((await expectConnectorError(restarted.placeOrder(poor), "rejected")).message).toBe(refused.message);
    await expectConnectorError(restarted.placeOrder({ ...order, volume: 2000 }), "invalidRequest");
    const deals = await restarted.dealHistory({ login, from: 0, to: h.now() });
    expect(deals.filter((d) => d.entry === "in").map((d) => d.id)).toEqual([opened.dealId]);
    expect(deals.filter((d) => d.entry === "out").map((d) => [d.id, d.volume])).toEqual([[done.dealId, 300]]);
  });
});
