/**
 * The trade feed's recovery paths, with a connector's real event journal underneath (the part of
 * a connector the feed reads): missed events become a `tradeGap` and the feed carries on from
 * now; a bus that refuses a publish gets it again, in order, with nothing lost.
 */
import { afterEach, expect, it, describe } from "vitest";
import type { UnsequencedTradeEvent } from "../../../core/trading/index.ts";
import type { TradePlatformConnector } from "../../../server/connectors/connector.ts";
import { EventJournal } from "../../../server/connectors/events/eventJournal.ts";
import { JournalStream } from "../../../server/connectors/events/eventStream.ts";
import type { EventBus } from "../../../server/events/bus.ts";
import { createInProcessBus } from "../../../server/events/inProcess.ts";
import { TradeFeed } from "../../../server/events/tradeFeed.ts";
import type { BusMessage, BusPublishOptions, DomainEvent } from "../../../server/events/types.ts";

const platform = { id: "11111111-1111-4111-8111-111111111111", organizationId: "22222222-2222-4222-8222-222222222222", type: "MT5" as const };

/** A connector reduced to its event stream, over the journal the wire connector uses. */
function journalConnector(journal: EventJournal): TradePlatformConnector {
  return {
    subscribe(fromSequence?: number) {
      if (fromSequence === undefined) return new JournalStream(journal, null);
      journal.assertResumable(fromSequence);
      return new JournalStream(journal, fromSequence);
    },
  } as unknown as TradePlatformConnector;
}

function deal(login: string): UnsequencedTradeEvent {
  return { type: "accountChanged", time: Date.now(), login, account: { login } } as unknown as UnsequencedTradeEvent;
}

async function until(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

const describeOf = (m: BusMessage) => (m.event.type === "trade" ? `trade ${m.event.event.sequence}` : m.event.type);

describe("trade feed recovery", () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  function start(bus: EventBus, journal: EventJournal) {
    const feed = new TradeFeed({ bus, retryDelayMs: 5 });
    cleanups.push(() => feed.stopAll());
    const seen: string[] = [];
    const sub = bus.subscribe({ types: ["trade", "tradeGap"] }, (m) => seen.push(describeOf(m)));
    cleanups.push(async () => sub.close());
    feed.attach(platform, journalConnector(journal));
    return { feed, seen };
  }

  it("publishes a trade gap when the connector lost events, then continues from now", async () => {
    const journal = new EventJournal();
    const { seen } = start(createInProcessBus(), journal);
    await until(() => seen.length === 1, "the start's gap");
    for (const login of ["1", "2", "3"]) journal.append(deal(login));
    await until(() => seen.length === 4, "three trades");
    // Events were lost upstream; the stream notices with the next one (which then counts as read: the gap covers it).
    journal.markGap();
    journal.append(deal("4"));
    await until(() => seen.length === 5, "the second gap");
    journal.append(deal("5"));
    journal.append(deal("6"));
    await until(() => seen.length === 7, "trades after the gap");
    expect(seen).toEqual(["tradeGap", "trade 1", "trade 2", "trade 3", "tradeGap", "trade 5", "trade 6"]);
  });

  it("publishes again what the bus refused, in order, nothing lost or repeated", async () => {
    const inner = createInProcessBus();
    let refusals = 3;
    const batches: number[] = [];
    const attempts: (readonly (string | undefined)[] | undefined)[] = [];
    const flaky: EventBus = {
      ...inner,
      publish(events: DomainEvent | readonly DomainEvent[], options?: BusPublishOptions) {
        attempts.push(options?.ids);
        if (refusals-- > 0) return Promise.reject(new Error("NATS is away"));
        batches.push(Array.isArray(events) ? events.length : 1);
        return inner.publish(events);
      },
    };
    const journal = new EventJournal();
    const { feed, seen } = start(flaky, journal);
    for (let i = 1; i <= 50; i++) journal.append(deal(String(i)));
    await until(() => seen.length === 51, "every trade");
    expect(seen).toEqual(["tradeGap", ...Array.from({ length: 50 }, (_, i) => `trade ${i + 1}`)]);
    // Batched: far fewer publishes than events.
    expect(batches.length).toBeLessThan(10);
    expect(feed.status(platform.id)).toMatchObject({ phase: "live", lastSequence: 50, published: 51 });
    // Each attempt of a batch carries the same message ids (NATS stores a repeat once), all different.
    expect(attempts[1]).toEqual(attempts[0]);
    expect(attempts[3]).toEqual(attempts[0]);
    const ids = attempts.slice(3).flatMap((a) => a ?? []);
    expect(ids).toHaveLength(51);
    expect(new Set(ids).size).toBe(51);
    expect(ids[1]).toMatch(new RegExp(`^${platform.id}:[0-9a-f-]+:1:1$`));
  });
});
