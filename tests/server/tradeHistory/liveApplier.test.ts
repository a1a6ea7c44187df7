/**
 * The history writer's `settled()` under a sustained rate: it waits for the events pushed before
 * the call, not for the queue to be empty (which, at thousands of events a second, it never is).
 * (Blotter snapshots waited on it then; when it waited for an empty queue, no stream under load
 * ever got its first snapshot.) And events pushed just as a flush ends are written all the same.
 */
import crypto from "node:crypto";
import { setImmediate as nextTurn } from "node:timers/promises";
import { expect, it } from "vitest";
import type { Account, TradeEvent } from "../../../core/trading/index.ts";
import { LiveApplier } from "../../../server/modules/tradeHistory/liveApplier.ts";
import { describeEachDb, openDatabaseOf } from "../../helpers/eachDb.ts";

describeEachDb("trade history live writer", (kind) => {
  it("settles the events pushed before the call while new ones keep coming", async () => {
    const database = await openDatabaseOf(kind);
    const applier = new LiveApplier(database.db, { onError: () => {} });
    let sequence = 0;
    const event = (): TradeEvent => ({ type: "accountChanged", sequence: ++sequence, time: Date.now(), login: "1", account: { login: "1" } as Account });
    const push = () => applier.push({ organizationId: crypto.randomUUID(), platformId: crypto.randomUUID(), event: event() });
    let pushing = true;
    const pusher = (async () => {
      while (pushing) {
        push();
        await nextTurn();
      }
    })();
    try {
      for (let i = 0; i < 50; i++) push();
      // Many batches later the queue is still not empty, and settled() must still come back.
      await applier.settled();
      await applier.settled();
      expect(sequence).toBeGreaterThan(50);
    } finally {
      pushing = false;
      await pusher;
      await applier.stop();
      await database.drop();
    }
  });

  it("writes events pushed as a settled() waiter resumes, while the flush that woke it is ending", async () => {
    const database = await openDatabaseOf(kind);
    const applier = new LiveApplier(database.db, { onError: () => {} });
    let sequence = 0;
    const push = () =>
      applier.push({
        organizationId: crypto.randomUUID(),
        platformId: crypto.randomUUID(),
        event: { type: "accountChanged", sequence: ++sequence, time: 0, login: "1", account: { login: "1" } as Account },
      });
    try {
      for (let i = 0; i < 10; i++) push();
      await applier.settled();
      // Resumed by the last batch's completion, before the flush has ended: these start the next one.
      for (let i = 0; i < 10; i++) push();
      let timer: ReturnType<typeof setTimeout> | undefined;
      const written = await Promise.race([
        applier.settled().then(() => true),
        new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), 5000))),
      ]);
      clearTimeout(timer);
      expect(written, "the events pushed as the flush ended were never written").toBe(true);
      expect(applier.stats().queued).toBe(0);
    } finally {
      await applier.stop();
      await database.drop();
    }
  });

  it("stop() ends a wait for events that will never be written", async () => {
    const database = await openDatabaseOf(kind);
    const applier = new LiveApplier(database.db, { onError: () => {} });
    try {
      for (let i = 1; i <= 5000; i++)
        applier.push({
          organizationId: crypto.randomUUID(),
          platformId: crypto.randomUUID(),
          event: { type: "accountChanged", sequence: i, time: 0, login: "1", account: { login: "1" } as Account },
        });
      const waiting = applier.settled();
      await applier.stop();
      await waiting;
    } finally {
      await database.drop();
    }
  });
});
