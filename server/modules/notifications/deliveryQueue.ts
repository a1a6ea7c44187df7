/**
 * The queue of channel deliveries, kept in the database (`notification_deliveries`), so a delivery
 * waiting for its retry survives a restart and, with several nodes, is made by exactly one
 * (docs/notifications.md "Delivery").
 *
 *  - **Once per event and channel.** Every node's notification center hears every event on the
 *    bus and enqueues its deliveries; the row's unique key (channel, the notice's dedupe key — the
 *    event it comes from) makes the second node's insert a no-op.
 *  - **One node tries it.** A node takes a due row by a conditional update that sets its lease
 *    (`lease_owner`, `lease_expires_at`): only a pending row, due, whose lease is free or ran out.
 *    The poller takes a batch with `FOR UPDATE SKIP LOCKED`, so two nodes polling at once take
 *    different rows. Every write after a try is conditional on still holding the lease.
 *  - **Retries.** A failed try sets `next_attempt_at` (retryBaseMs × 2^(attempt−1), on the
 *    database's clock) and frees the lease; the node that failed sets a timer for it, and every
 *    node's poller (every pollEveryMs) takes whatever is due — after a restart, what the previous
 *    run left. A node that dies mid-try leaves a lease that runs out after LEASE_MS, and the row is
 *    tried again (a receiver drops the repeat by its `Toolbox-Delivery` id); a live node renews its
 *    lease while a try lasts.
 */
import { randomUUID } from "node:crypto";
import type { FastifyBaseLogger } from "fastify";
import type { Db } from "../../db/client.ts";
import {
  insertDeliveries,
  LEASE_MS,
  msUntilDue,
  release,
  renewLease,
  settle,
  takeDue,
  takeOne,
  type Settlement,
  type StoredMessage,
} from "./deliveryRepository.ts";
import type { ChannelRow, DeliveryRow } from "./repository.ts";
import { DeliveryFailed, DeliveryWithheld, type OutgoingMessage } from "./senders.ts";

/** Due deliveries one poll takes at most. */
const BATCH = 20;

export interface DeliveryQueueOptions {
  db: Db;
  log: FastifyBaseLogger;
  maxAttempts: number;
  retryBaseMs: number;
  pollEveryMs: number;
  /** The channel as it is now (a try uses its current URL and secret); undefined: deleted. */
  channel(id: string): Promise<ChannelRow | undefined>;
  /** One try; resolves with the receiver's status, throws (DeliveryFailed) otherwise. */
  send(channel: ChannelRow, message: OutgoingMessage): Promise<number | null>;
  delivered(channel: ChannelRow): Promise<void>;
  /** The delivery's last try failed. */
  gaveUp(channel: ChannelRow, error: string): Promise<void>;
  /** Work in flight, awaited when the center stops. */
  track(work: Promise<unknown>): void;
}

export class DeliveryQueue {
  /** This node's name on the leases it takes (a new one each start). */
  readonly node = randomUUID();
  private poller: ReturnType<typeof setInterval> | null = null;
  private readonly timers = new Set<ReturnType<typeof setTimeout>>();
  private stopped = false;

  constructor(private readonly o: DeliveryQueueOptions) {}

  start(): void {
    this.poller = setInterval(() => this.o.track(this.poll()), this.o.pollEveryMs);
    this.poller.unref?.();
    // What a previous run (or a node that stopped) left due is taken at once.
    this.o.track(this.poll());
  }

  stop(): void {
    this.stopped = true;
    if (this.poller) clearInterval(this.poller);
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
  }

  /**
   * One delivery per channel for this notice; a channel that already has one for the same key
   * (another node enqueued it first, or the event was seen again) gets nothing new. The new ones
   * are tried at once.
   */
  async enqueue(notice: { organizationId: string; type: string; dedupeKey: string }, message: StoredMessage, channels: readonly ChannelRow[]): Promise<void> {
    if (channels.length === 0) return;
    const added = await insertDeliveries(
      this.o.db,
      notice,
      message,
      channels.map((c) => c.id),
    );
    for (const id of added) this.o.track(this.takeAndTry(id));
  }

  /** Takes the due deliveries no node holds, a batch at a time, and tries them. */
  async poll(): Promise<void> {
    if (this.stopped) return;
    const rows = await takeDue(this.o.db, this.node, BATCH);
    await Promise.all(rows.map((row) => this.attempt(row)));
  }

  /** Takes one delivery if it is still due and free (a new delivery, a timer's retry), and tries it. */
  private async takeAndTry(id: string): Promise<boolean> {
    if (this.stopped) return false;
    const row = await takeOne(this.o.db, this.node, id);
    if (row) await this.attempt(row);
    return row !== undefined;
  }

  /**
   * A retry's timer: takes the delivery when it is due. The wait was counted on this node's clock
   * and `next_attempt_at` on the database's, so a timer a few milliseconds early waits the rest
   * instead of leaving the retry to the next poll.
   */
  private async retryWhenDue(id: string): Promise<void> {
    if (await this.takeAndTry(id)) return;
    const left = await msUntilDue(this.o.db, id);
    if (left > 0) this.later(id, Math.ceil(left) + 1);
  }

  private later(id: string, ms: number): void {
    if (this.stopped) return;
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      this.o.track(this.retryWhenDue(id));
    }, ms);
    this.timers.add(timer);
  }

  /** Writes the outcome of a try, only while this node still holds the delivery. */
  private settle(id: string, outcome: Settlement): Promise<boolean> {
    return settle(this.o.db, this.node, id, outcome);
  }

  /** One try of a delivery this node holds; a failure is tried again after retryBaseMs × 2^(attempt−1), up to maxAttempts. */
  private async attempt(row: DeliveryRow): Promise<void> {
    if (this.stopped) {
      // Not tried: free it for whoever runs next.
      await release(this.o.db, this.node, row.id);
      return;
    }
    const { maxAttempts, retryBaseMs, log } = this.o;
    const channel = await this.o.channel(row.channelId);
    if (!channel) return; // deleted: its deliveries went with it
    if (!channel.enabled) {
      await this.settle(row.id, { status: "failed", retryInMs: null, lastError: "The channel was switched off before this delivery got through" });
      return;
    }
    const attempt = row.attempts + 1;
    const stored = row.message as StoredMessage;
    const message: OutgoingMessage = {
      deliveryId: row.id,
      organizationId: row.organizationId,
      type: row.type,
      severity: stored.severity,
      title: stored.title,
      body: stored.body,
      link: stored.link,
      occurredAt: row.createdAt.toISOString(),
      test: false,
    };
    // A try that takes longer than the lease (an e-mail server slow to answer) keeps it, so no
    // other node starts the same delivery while this one is still sending it.
    const renew = setInterval(() => {
      this.o.track(renewLease(this.o.db, this.node, row.id));
    }, LEASE_MS / 3);
    try {
      const status = await this.o.send(channel, message);
      if (await this.settle(row.id, { status: "delivered", attempts: attempt, lastStatus: status, lastError: null, retryInMs: null }))
        await this.o.delivered(channel);
    } catch (err) {
      if (err instanceof DeliveryWithheld) {
        // Not the receiver's failure (no confirmed recipient, the hourly mail limit): not tried
        // again and not counted towards switching the channel off.
        await this.settle(row.id, { status: "failed", attempts: attempt, lastError: err.message, retryInMs: null });
        log.info({ channelId: channel.id, deliveryId: row.id, reason: err.message }, "notification delivery withheld");
        return;
      }
      const failure = err instanceof DeliveryFailed ? err : new DeliveryFailed((err as Error).message);
      const last = attempt >= maxAttempts;
      const wait = retryBaseMs * 2 ** (attempt - 1);
      const kept = await this.settle(row.id, {
        status: last ? "failed" : "pending",
        attempts: attempt,
        lastStatus: failure.status,
        lastError: failure.message.slice(0, 500),
        retryInMs: last ? null : wait,
      });
      log.info({ channelId: channel.id, deliveryId: row.id, attempt, error: failure.message }, "notification delivery failed");
      if (!kept) return;
      if (last) return this.o.gaveUp(channel, failure.message);
      this.later(row.id, wait);
    } finally {
      clearInterval(renew);
    }
  }
}
