/**
 * The node's one reader of the whole stream: an ordered consumer on every subject of the bus,
 * from where the stream ended when the bus connected. Each event is decoded once and offered to
 * every local subscription (./localSubscription.ts), which filters it as the in-process bus does;
 * so a hundred browser streams on a node cost one consumer, not a hundred. The client recreates
 * an ordered consumer after a reconnect from the last sequence it saw.
 */
import { DeliverPolicy, type ConsumerMessages, type JetStreamClient } from "@nats-io/jetstream";
import type { BusMessage, DomainEvent } from "../types.ts";
import { BATCH, type NatsContext } from "./context.ts";

export interface TapSubscriber {
  offer(message: BusMessage): void;
}

export class Tap {
  /** The last stream sequence the tap handed out; where it starts, less one, before any. */
  lastSeq = 0;
  /** Resolves once the tap knows where it starts (its `lastSeq` means something from then on). */
  readonly started: Promise<void>;
  private markStarted!: () => void;
  private readonly subscribers = new Set<TapSubscriber>();
  private messages: ConsumerMessages | null = null;
  private stopped = false;

  constructor(private readonly ctx: NatsContext) {
    this.started = new Promise((resolve) => (this.markStarted = resolve));
  }

  get size(): number {
    return this.subscribers.size;
  }

  add(subscriber: TapSubscriber): void {
    this.subscribers.add(subscriber);
  }

  delete(subscriber: TapSubscriber): void {
    this.subscribers.delete(subscriber);
  }

  /** Reads from `from` on until stopped; a failure (not a lost connection: the client rides those) starts it again after a second. */
  async run(js: JetStreamClient, from: number): Promise<void> {
    this.lastSeq = from - 1;
    this.markStarted();
    while (!this.stopped) {
      try {
        const consumer = await js.consumers.get(this.ctx.stream, {
          filter_subjects: `${this.ctx.subjectPrefix}.>`,
          deliver_policy: DeliverPolicy.StartSequence,
          opt_start_seq: this.lastSeq + 1,
        });
        if (this.stopped) return;
        this.messages = await consumer.consume({ max_messages: BATCH });
        if (this.stopped) this.messages.stop();
        for await (const m of this.messages) {
          const seq = m.seq;
          this.lastSeq = seq;
          this.ctx.saw(seq);
          if (this.subscribers.size === 0) continue;
          const message: BusMessage = { seq, publishedAt: Number(m.timestampNanos / 1_000_000n), event: m.json<DomainEvent>() };
          for (const subscriber of this.subscribers) subscriber.offer(message);
        }
      } catch (error) {
        if (this.stopped) return;
        this.ctx.onFailure(error, "the event bus's reader of the stream failed; starting it again");
        await new Promise((r) => setTimeout(r, 1_000).unref());
      }
    }
  }

  stop(): void {
    this.stopped = true;
    this.subscribers.clear();
    this.messages?.stop();
  }
}
