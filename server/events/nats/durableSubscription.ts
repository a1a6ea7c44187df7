/**
 * A subscription with `durable` on the NATS bus: a durable JetStream consumer of that name with
 * explicit acks, filtered by subject (./subjects.ts). It resumes where it stopped, even after a
 * restart of the node; `after` only places it the first time it is created. Each event is acked
 * once its handler returned (or threw: a handler's error is logged, as everywhere on the bus).
 * `onGap` is called once, before anything is delivered, when what followed its last ack (or
 * `after`) is no longer in the stream. For a filter that matches few events this may also say so
 * when none of the dropped ones was its own: a resync too many, never one too few.
 */
import { AckPolicy, DeliverPolicy, type ConsumerMessages, type JetStreamManager } from "@nats-io/jetstream";
import { matches } from "../bus.ts";
import type { BusFilter, BusHandler, BusMessage, BusSubscribeOptions, BusSubscription, DomainEvent } from "../types.ts";
import { BATCH, type NatsContext } from "./context.ts";
import { filterSubjectOf } from "./subjects.ts";

export class DurableSubscription implements BusSubscription {
  private last = 0;
  private closed = false;
  private messages: ConsumerMessages | null = null;

  constructor(
    private readonly ctx: NatsContext,
    private readonly name: string,
    private readonly filter: BusFilter,
    private readonly handler: BusHandler,
    private readonly options: BusSubscribeOptions,
    seenAtSubscribe: number,
    private readonly onClose: () => void,
  ) {
    void this.run(seenAtSubscribe).catch((error: unknown) => {
      if (!this.closed) ctx.onFailure(error, `the durable event bus subscription ${name} failed`);
    });
  }

  get lastSeq(): number {
    return this.last;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.messages?.stop();
    this.onClose();
  }

  private async run(seenAtSubscribe: number): Promise<void> {
    const clients = await this.ctx.connected();
    if (!clients || this.closed) return;
    const { js, jsm } = clients;
    const { state } = await jsm.streams.info(this.ctx.stream);
    const end = state.last_seq;
    const firstAvailable = state.messages > 0 ? state.first_seq : end + 1;
    await this.ensureConsumer(jsm, end, firstAvailable, seenAtSubscribe);
    if (this.closed) return;
    this.messages = await (await js.consumers.get(this.ctx.stream, this.name)).consume({ max_messages: BATCH });
    if (this.closed) this.messages.stop();
    for await (const m of this.messages) {
      if (this.closed) break;
      this.ctx.saw(m.seq);
      if (m.seq > this.last) {
        const event = m.json<DomainEvent>();
        if (matches(this.filter, event)) {
          this.last = m.seq;
          const message: BusMessage = { seq: m.seq, publishedAt: Number(m.timestampNanos / 1_000_000n), event };
          try {
            const result: unknown = this.handler(message);
            if (result instanceof Promise) await result;
          } catch (error) {
            this.ctx.onHandlerError(error, message);
          }
        }
      }
      m.ack();
    }
  }

  private async ensureConsumer(jsm: JetStreamManager, end: number, firstAvailable: number, seenAtSubscribe: number): Promise<void> {
    const { after, onGap } = this.options;
    try {
      const info = await jsm.consumers.info(this.ctx.stream, this.name);
      const acked = info.ack_floor.stream_seq;
      if (acked + 1 < firstAvailable) onGap?.({ after: acked, firstAvailable });
      this.last = acked;
      return;
    } catch (error) {
      if (!(error instanceof Error && (error.name === "ConsumerNotFoundError" || /consumer not found/i.test(error.message)))) throw error;
    }
    let start: number;
    // What the bus had seen at `subscribe`, unless that is long stale (it had not heard of other nodes' events).
    if (after === undefined) start = end - seenAtSubscribe > 10_000 ? end + 1 : seenAtSubscribe + 1;
    else {
      if (after > end || after + 1 < firstAvailable) onGap?.({ after, firstAvailable });
      start = after > end ? firstAvailable : Math.max(after + 1, firstAvailable);
      this.last = after > end ? 0 : after;
    }
    await jsm.consumers.add(this.ctx.stream, {
      durable_name: this.name,
      ack_policy: AckPolicy.Explicit,
      filter_subject: filterSubjectOf(this.ctx.subjectPrefix, this.filter),
      deliver_policy: DeliverPolicy.StartSequence,
      opt_start_seq: Math.max(1, start),
      max_ack_pending: 20_000,
    });
  }
}
