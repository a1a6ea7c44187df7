/**
 * Contract: the live stream. Every event exactly once, in sequence, matching the platform's own
 * positions and history, across a forced disconnect, with the server sending duplicates, and when
 * a consumer resubscribes from the last sequence it handled.
 */
import { expect, it } from "vitest";
import type { TradeEvent } from "../../../../core/trading/index.ts";
import type { ConnectorHarness } from "./harness.ts";
import { collect, expectConnectorError, expectConsecutive, expectDealsMatchHistory, replay, settle } from "./helpers.ts";

async function expectStreamMatchesServer(
  harness: ConnectorHarness,
  events: TradeEvent[],
  snapshot: Awaited<ReturnType<ConnectorHarness["connector"]["openPositions"]>>,
  from: number,
) {
  const { connector } = harness;
  const rebuilt = replay(snapshot, events);
  const actual = await connector.openPositions();
  const key = (p: { id: string; volume: number; sl: number | null; tp: number | null }) => `${p.id}/${p.volume}/${p.sl}/${p.tp}`;
  expect([...rebuilt.values()].map(key).sort()).toEqual(actual.map(key).sort());
  await expectDealsMatchHistory(connector, events, from, harness.now());
}

export function streamContract(h: () => ConnectorHarness): void {
  it("delivers trading activity in sequence, matching positions and history", async () => {
    const harness = h();
    await harness.advance(1000);
    const from = harness.now();
    const snapshot = await harness.connector.openPositions();
    const stream = harness.connector.subscribe();
    const start = stream.lastSequence;
    const reader = collect(stream);
    await harness.trade(300);
    await harness.advance(2000);
    await harness.trade(300);
    await settle(harness);
    await reader.stop();
    expect(reader.error()).toBeUndefined();
    expect(reader.events.length).toBeGreaterThan(300);
    expectConsecutive(reader.events, start);
    for (const e of reader.events) expect(e.time).toBeGreaterThanOrEqual(from);
    await expectStreamMatchesServer(harness, reader.events, snapshot, from);
  });

  for (const duplicates of [false, true]) {
    it(`resumes after a forced disconnect with nothing lost or repeated${duplicates ? ", while the server sends duplicates" : ""}`, async () => {
      const harness = h();
      const { connector } = harness;
      harness.faults.duplicateEvents(duplicates);
      await harness.advance(1000);
      const from = harness.now();
      const snapshot = await connector.openPositions();
      const stream = connector.subscribe();
      const start = stream.lastSequence;
      const reader = collect(stream);
      await harness.trade(100);
      await settle(harness);

      harness.faults.dropConnection();
      await settle(harness);
      expect(connector.state).toBe("reconnecting");
      expect(connector.lastError?.code).toBe("unreachable");
      await expectConnectorError(connector.listGroups(), "unreachable");
      await harness.trade(150); // the server trades on while Toolbox is away
      await harness.advance(1000);

      await connector.connect(); // what the ConnectionManager does
      expect(connector.state).toBe("connected");
      await harness.trade(100);
      await settle(harness);
      await reader.stop();

      expect(reader.error()).toBeUndefined();
      expectConsecutive(reader.events, start);
      await expectStreamMatchesServer(harness, reader.events, snapshot, from);
    });
  }

  it("lets a consumer resubscribe from the last sequence it handled, across a deliberate disconnect", async () => {
    const harness = h();
    const { connector } = harness;
    await harness.advance(1000);
    const from = harness.now();
    const snapshot = await connector.openPositions();
    const first = connector.subscribe();
    const start = first.lastSequence;
    const reader = collect(first);
    await harness.trade(80);
    await settle(harness);
    await connector.disconnect(); // ends the stream
    await settle(harness);
    await reader.stop();
    const seen = reader.events.at(-1)?.sequence ?? start;
    expect(first.lastSequence).toBe(seen);

    await harness.trade(80);
    await connector.connect();
    const resumed = collect(connector.subscribe(seen));
    await harness.trade(80);
    await settle(harness);
    await resumed.stop();
    const all = [...reader.events, ...resumed.events];
    expectConsecutive(all, start);
    await expectStreamMatchesServer(harness, all, snapshot, from);

    // Replaying from an earlier sequence gives the very same events again.
    const replayed = collect(connector.subscribe(start));
    await settle(harness);
    await replayed.stop();
    expect(replayed.events).toEqual(all);
  });

  it("refuses to resume from a sequence this connection never produced", async () => {
    const { connector } = h();
    const last = connector.subscribe().lastSequence;
    await expectConnectorError(
      Promise.resolve().then(() => connector.subscribe(last + 1000)),
      "resyncRequired",
    );
    await expectConnectorError(
      Promise.resolve().then(() => connector.subscribe(-1)),
      "invalidRequest",
    );
  });
}
