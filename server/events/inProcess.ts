/**
 * The embedded event bus: one process, no network. Events are delivered synchronously, in order,
 * to every matching subscription as they are published, and the last ones are retained (bounded
 * by count and age) so that a subscriber can resume after the sequence it last handled.
 */
import { inProcessLink } from "./link.ts";
import { matches, type EventBus } from "./bus.ts";
import type { BusFilter, BusHandler, BusHealth, BusMessage, BusSubscribeOptions, BusSubscription, DomainEvent, DomainEventType } from "./types.ts";

export interface InProcessBusOptions {
  /** How many events are kept for resuming subscribers; 100,000 by default. */
  retainEvents?: number;
  /** How long events are kept for resuming subscribers; 10 minutes by default. */
  retainMs?: number;
  /** Where a handler's error is reported (the bus itself carries on). */
  onHandlerError?: (error: unknown, message: BusMessage) => void;
  now?: () => number;
}

const SEQUENCES_PER_MS = 1000;

interface Subscriber {
  filter: BusFilter;
  handler: BusHandler;
  lastSeq: number;
  closed: boolean;
}

export function createInProcessBus(options: InProcessBusOptions = {}): EventBus {
  const retainEvents = options.retainEvents ?? 100_000;
  const retainMs = options.retainMs ?? 10 * 60_000;
  const now = options.now ?? Date.now;
  const onHandlerError = options.onHandlerError ?? ((error) => console.error("event bus handler failed", error));

  // Retained messages in a ring: `ring[(start + i) % capacity]` for i < size.
  const ring: (BusMessage | undefined)[] = new Array<BusMessage | undefined>(retainEvents);
  let start = 0;
  let size = 0;
  // A restarted process starts a new bus, and a client may resume with a sequence the previous one
  // gave (the blotter's Last-Event-ID). Starting from 0, such an id would soon be a sequence of this
  // bus too, and the client would resume in the middle of events that are not the ones it missed.
  // So sequences start past any the previous run can have reached: a thousand per millisecond of
  // the clock (no bus hands out a million a second for long; 2^53 lasts until the year 2255), and
  // an id from before a restart is always older than what this bus keeps: a gap.
  let seq = Math.floor(now() * SEQUENCES_PER_MS);
  let closed = false;
  const subscribers = new Set<Subscriber>();

  const at = (i: number) => ring[(start + i) % retainEvents] as BusMessage;
  const dropExpired = () => {
    const oldest = now() - retainMs;
    while (size > 0 && at(0).publishedAt < oldest) {
      ring[start] = undefined;
      start = (start + 1) % retainEvents;
      size--;
    }
  };
  const retain = (message: BusMessage) => {
    if (size === retainEvents) {
      start = (start + 1) % retainEvents;
      size--;
    }
    ring[(start + size) % retainEvents] = message;
    size++;
  };
  const deliver = (sub: Subscriber, message: BusMessage) => {
    if (sub.closed || message.seq <= sub.lastSeq || !matches(sub.filter, message.event)) return;
    sub.lastSeq = message.seq;
    try {
      sub.handler(message);
    } catch (error) {
      onHandlerError(error, message);
    }
  };

  return {
    kind: "in-process",
    link: inProcessLink(),

    publish(events) {
      if (closed) return Promise.reject(new Error("The event bus is closed."));
      const list: readonly DomainEvent[] = Array.isArray(events) ? events : [events as DomainEvent];
      const publishedAt = now();
      for (const event of list) {
        const message: BusMessage = { seq: ++seq, publishedAt, event };
        retain(message);
        for (const sub of subscribers) deliver(sub, message);
      }
      dropExpired();
      return Promise.resolve();
    },

    subscribe<T extends DomainEventType>(
      filter: BusFilter<T>,
      handler: BusHandler<Extract<DomainEvent, { type: T }>>,
      subscribeOptions: BusSubscribeOptions = {},
    ): BusSubscription {
      const sub: Subscriber = { filter, handler: handler as BusHandler, lastSeq: 0, closed: false };
      const { after } = subscribeOptions;
      if (after !== undefined) {
        dropExpired();
        const firstAvailable = size > 0 ? at(0).seq : seq + 1;
        // A sequence from before a restart (ahead of this bus) is a gap too: everything retained follows.
        const from = after > seq ? 0 : after;
        if (after > seq || after + 1 < firstAvailable) subscribeOptions.onGap?.({ after, firstAvailable });
        sub.lastSeq = from;
        for (let i = 0; i < size; i++) deliver(sub, at(i));
      } else {
        sub.lastSeq = seq;
      }
      subscribers.add(sub);
      return {
        get lastSeq() {
          return sub.lastSeq;
        },
        close() {
          sub.closed = true;
          subscribers.delete(sub);
        },
      };
    },

    health(): BusHealth {
      return { kind: "in-process", state: closed ? "down" : "up", lastSeq: seq, subscriptions: subscribers.size };
    },

    close() {
      closed = true;
      subscribers.clear();
      return Promise.resolve();
    },
  };
}
