/**
 * The accounts mirror's event applier: when an account's figures are marked for a refresh. A mark
 * set before the batch's rows are written let a refresh read the platform during that write, find
 * the row newer than its read (the batch's, with the figures from before the trade), skip it, and
 * leave the account's equity and margin stale with no mark left (a CI failure of
 * mirror.test.ts, "refreshes equity and margin of accounts that traded", on PostgreSQL).
 */
import { expect, it } from "vitest";
import type { Account, Position, TradeEvent } from "../../../core/trading/index.ts";
import { createSimulatedConnector } from "../../../server/connectors/simulated/connector.ts";
import { SimulatedServer } from "../../../server/connectors/simulated/server.ts";
import { EventApplier } from "../../../server/modules/accounts/mirror/eventApplier.ts";
import type { AccountColumns } from "../../../server/modules/accounts/mirror/rows.ts";

it("marks an account's figures for a refresh only once the batch holding its account event is written", async () => {
  const server = new SimulatedServer({ platform: "MT5", accounts: 2, tradeRate: 0, seed: 5, feedIntervalMs: 3_600_000 });
  server.start();
  const connector = createSimulatedConnector(server);
  await connector.connect();
  try {
    const login = server.engine.listAccounts(null, 1, null)[0]!.login;
    const account: Account = await connector.getAccount(login);
    // The applier reads only a position event's type and login.
    const position = { login } as Position;
    let sequence = 0;
    const changed = (): TradeEvent => ({ type: "accountChanged", sequence: ++sequence, time: Date.now(), login, account });
    const opened = (): TradeEvent => ({ type: "positionOpened", sequence: ++sequence, time: Date.now(), login, position });

    // Each write waits until the test lets it land.
    const writes: { rows: AccountColumns[]; land: () => void }[] = [];
    const applier = new EventApplier(
      (rows) => new Promise<void>((land) => writes.push({ rows, land })),
      () => {},
    );
    const later = () => new Promise((r) => setTimeout(r, 5));
    const pending = async (n: number) => {
      while (writes.length < n) await later();
      return writes[n - 1]!;
    };

    applier.push(opened()); // the first batch: written at once, alone
    applier.push(changed()); // the next batch: the account's row, then a trade that moves its figures
    applier.push(opened());
    (await pending(1)).land();
    const second = await pending(2);
    expect(second.rows.map((r) => r.login)).toEqual([login]);
    expect(applier.dirty.has(login)).toBe(true);
    // A figures refresh takes the mark and reads the account while the second batch is written.
    applier.dirty.delete(login);
    second.land();
    await applier.settled();
    // The row from before the trade landed after that read, so the refresh's write is refused as
    // older: the account must be marked again, for a refresh that reads after it.
    expect(applier.dirty.has(login)).toBe(true);

    // An account event after the trade carries the figures: no mark. (The first event goes alone,
    // so both go after a write that waits.)
    applier.dirty.delete(login);
    applier.push(opened());
    applier.push(opened());
    applier.push(changed());
    (await pending(3)).land();
    (await pending(4)).land();
    await applier.settled();
    expect(writes).toHaveLength(4);
    expect(applier.dirty.has(login)).toBe(false);
  } finally {
    await connector.disconnect();
    server.stop();
  }
});
