/**
 * A subscription without `durable` on the NATS bus: fed by the node's tap (./tap.ts), filtered
 * here (bus.ts `matches`).
 *  - Without `after`: live from what the bus had seen when `subscribe` was called.
 *  - With `after`: first catching up. Its own ordered consumer, filtered by subject
 *    (./subjects.ts), reads the stream from `after + 1`, while what the tap offers meanwhile is
 *    held (bounded). Caught up once the consumer has delivered a sequence the tap had reached, or
 *    has nothing pending (then everything up to the stream's end is delivered): the held events
 *    follow, and the tap feeds it from then on. Sequences never go back, so nothing is repeated.
 *    `onGap` is called once, before anything else, when the events after `after` are no longer in
 *    the stream or `after` is ahead of it (a new stream).
 */
import { DeliverPolicy, type ConsumerMessages, type JsMsg } from "@nats-io/jetstream";
import { matches } from "../bus.ts";
import type { BusFilter, BusHandler, BusMessage, BusSubscribeOptions, BusSubscription, DomainEvent } from "../types.ts";
import { BATCH, type NatsContext } from "./context.ts";
import { filterSubjectOf } from "./subjects.ts";
import type { Tap, TapSubscriber } from "./tap.ts";

/** Events held from the tap while catching up; past it they are dropped and the catch-up reads further instead. */
const MAX_HELD = 50_000;

export class LocalSubscription implements BusSubscription, TapSubscriber {
  private last: number;
  private catchingUp: boolean;
  private held: BusMessage[] = [];
  /** Catching up ends at (or after) this sequence: what the tap had reached when it started holding. */
  private until = 0;
  private closed = false;
  private catchUpMessages: ConsumerMessages | null = null;

  constructor(
    private readonly ctx: NatsContext,
    private readonly tap: Tap,
    private readonly filter: BusFilter,
    private readonly handler: BusHandler,
    private readonly options: BusSubscribeOptions,
    seenAtSubscribe: number,
    private readonly onClose: () => void,
  ) {
    const { after } = options;
    this.catchingUp = after !== undefined;
    this.last = after ?? seenAtSubscribe;
    this.until = tap.lastSeq;
    tap.add(this);
    if (after !== undefined)
      void this.catchUp(after).catch((error: unknown) => {
        if (!this.closed) ctx.onFailure(error, "an event bus subscription could not catch up");
      });
  }

  get lastSeq(): number {
    return this.last;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.tap.delete(this);
    this.catchUpMessages?.stop();
    this.held = [];
    this.onClose();
  }

  offer(message: BusMessage): void {
    if (this.closed || message.seq <= this.last || !matches(this.filter, message.event)) return;
    if (!this.catchingUp) return this.deliver(message);
    this.held.push(message);
    if (this.held.length > MAX_HELD) {
      this.held = [];
      this.until = message.seq;
    }
  }

  private async catchUp(after: number): Promise<void> {
    const clients = await this.ctx.connected();
    if (!clients || this.closed) return;
    await this.tap.started;
    this.until = Math.max(this.until, this.tap.lastSeq);
    const { js, jsm } = clients;
    const { stream } = this.ctx;
    const { state } = await jsm.streams.info(stream);
    const end = state.last_seq;
    const firstAvailable = state.messages > 0 ? state.first_seq : end + 1;
    if (after > end || after + 1 < firstAvailable) this.options.onGap?.({ after, firstAvailable });
    if (after > end) {
      // A new stream: everything it holds follows (the tap's offers so far were held back as old).
      this.last = 0;
      this.until = Math.max(this.until, end);
    }
    const start = after > end ? firstAvailable : Math.max(after + 1, firstAvailable);
    const subject = filterSubjectOf(this.ctx.subjectPrefix, this.filter);
    const next = start <= end ? await jsm.direct.getMessage(stream, { next_by_subj: subject, seq: start }) : null;
    if (next && !this.closed) {
      const consumer = await js.consumers.get(stream, { filter_subjects: subject, deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: start });
      if (this.closed) return;
      this.catchUpMessages = await consumer.consume({ max_messages: BATCH });
      for await (const m of this.catchUpMessages) {
        if (this.closed) break;
        this.ctx.saw(m.seq);
        this.deliverStored(m);
        if (m.seq >= this.until || m.info.pending === 0) break;
      }
      this.catchUpMessages.stop();
      this.catchUpMessages = null;
    }
    if (this.closed) return;
    this.catchingUp = false;
    const held = this.held;
    this.held = [];
    for (const message of held) if (message.seq > this.last) this.deliver(message);
  }

  private deliverStored(m: JsMsg): void {
    if (m.seq <= this.last) return;
    const event = m.json<DomainEvent>();
    if (matches(this.filter, event)) this.deliver({ seq: m.seq, publishedAt: Number(m.timestampNanos / 1_000_000n), event });
  }

  private deliver(message: BusMessage): void {
    this.last = message.seq;
    try {
      this.handler(message);
    } catch (error) {
      this.ctx.onHandlerError(error, message);
    }
  }
}
