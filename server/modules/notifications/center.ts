/**
 * The notification center of one node, as a whole: it follows the event bus (all organizations),
 * writes each event's notice (./notices.ts) to the members' inboxes as the organization's rules
 * say, tells open inbox streams (`inboxChanged` on the bus), and queues the notice for the
 * channels the rule names (./deliveryQueue.ts, sent by ./sendByChannel.ts; a channel that keeps
 * failing is switched off by ./channelFailures.ts). docs/notifications.md.
 */
import type { FastifyBaseLogger } from "fastify";
import { DEFAULT_SEVERITY } from "../../../core/schemas/notifications.ts";
import type { Db } from "../../db/client.ts";
import type { EventBus } from "../../events/bus.ts";
import { ORGANIZATION_WIDE } from "../../events/types.ts";
import type { Mailer } from "../../mail/mailer.ts";
import type { TargetPolicy } from "../../net/targets.ts";
import type { SecretCipher } from "../../secrets/cipher.ts";
import { channelById, channelsOf, resetChannelFailures } from "./centerRepository.ts";
import { channelGaveUp } from "./channelFailures.ts";
import { DeliveryQueue } from "./deliveryQueue.ts";
import { mailConfirmations } from "./confirmationMail.ts";
import type { ConfirmationRequest } from "./recipientRepository.ts";
import { FlapFilter } from "./flapFilter.ts";
import { noticeOfEvent, noticeOfTransition, WATCHED, type Notice, type WatchedMessage } from "./notices.ts";
import { getSettings, insertNotifications, recipientsOf, ruleOf, sweepRetention, type ChannelRow } from "./repository.ts";
import { sendByChannel } from "./sendByChannel.ts";
import type { OutgoingMessage } from "./senders.ts";
import { sendTest, type TestResult } from "./testSend.ts";

export interface NotificationCenterOptions {
  db: Db;
  bus: EventBus;
  cipher: SecretCipher;
  log: FastifyBaseLogger;
  mailer: Mailer;
  policy: TargetPolicy;
  publicUrl: string;
  telegramApiUrl: string;
  maxAttempts: number;
  retryBaseMs: number;
  disableAfter: number;
  reconnectSettleMs: number;
  /** E-mails (recipients counted, confirmations included) one organization may send in an hour. */
  maxEmailsPerHour: number;
  /** How often each node looks for deliveries due (retries, what a stopped node left). */
  pollEveryMs: number;
  retentionEveryMs?: number;
}

export class NotificationCenter {
  private subscription: { close(): void } | null = null;
  private retention: ReturnType<typeof setInterval> | null = null;
  private readonly running = new Set<Promise<unknown>>();
  private readonly flaps: FlapFilter;
  private readonly deliveries: DeliveryQueue;
  private stopped = false;

  constructor(readonly o: NotificationCenterOptions) {
    this.flaps = new FlapFilter(o.reconnectSettleMs, (platformId, t) =>
      this.track(this.notifyIf(noticeOfTransition(o.db, platformId, t.kind, t.kind === "disconnected" ? t.reason : null, t.seq))),
    );
    this.deliveries = new DeliveryQueue({
      db: o.db,
      log: o.log,
      maxAttempts: o.maxAttempts,
      retryBaseMs: o.retryBaseMs,
      pollEveryMs: o.pollEveryMs,
      channel: (id) => channelById(o.db, id),
      send: (channel, message) => this.sendBy(channel, message),
      delivered: (channel) => resetChannelFailures(o.db, channel.id),
      gaveUp: (channel, error) => this.notifyIf(channelGaveUp(o.db, o.disableAfter, channel, error)),
      track: (work) => this.track(work),
    });
  }

  start(): void {
    this.subscription = this.o.bus.subscribe({ types: WATCHED }, (message) => this.track(this.onEvent(message)));
    const sweep = () => this.track(sweepRetention(this.o.db).catch((err: unknown) => this.o.log.warn({ err }, "inbox retention sweep failed")));
    this.retention = setInterval(sweep, this.o.retentionEveryMs ?? 3_600_000);
    this.retention.unref?.();
    sweep();
    this.deliveries.start();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.subscription?.close();
    if (this.retention) clearInterval(this.retention);
    this.flaps.stop();
    this.deliveries.stop();
    await Promise.allSettled([...this.running]);
  }

  /** Work in flight, awaited at stop so nothing writes to a closed database. */
  private track<T>(work: Promise<T>): void {
    const p = work.catch((err: unknown) => {
      if (!this.stopped) this.o.log.error({ err }, "notification failed");
    });
    this.running.add(p);
    void p.finally(() => this.running.delete(p));
  }

  private async onEvent(message: WatchedMessage): Promise<void> {
    const { seq, event } = message;
    switch (event.type) {
      case "platformState":
        this.flaps.observe(event.platformId, event.state, event.lastError, seq);
        return;
      case "platformRemoved":
        this.flaps.forget(event.platformId);
        return;
      default:
        return this.notifyIf(noticeOfEvent(this.o.db, seq, event));
    }
  }

  private async notifyIf(notice: Promise<Notice | undefined>): Promise<void> {
    const n = await notice;
    if (n) await this.notify(n);
  }

  /** Inbox first (members named by the rule), then every channel the rule names. */
  async notify(notice: Notice): Promise<void> {
    const { db } = this.o;
    const settings = await getSettings(db, notice.organizationId);
    const rule = ruleOf(settings, notice.type);
    const severity = notice.severity ?? DEFAULT_SEVERITY[notice.type];
    if (rule.inbox || notice.members) {
      const subs = await recipientsOf(db, notice.organizationId, notice.members ?? rule.members);
      const added = await insertNotifications(db, notice.organizationId, subs, {
        type: notice.type,
        severity,
        title: notice.title,
        body: notice.body,
        link: notice.link,
        dedupeKey: notice.dedupeKey,
      });
      if (added.length > 0) await this.inboxChanged(notice.organizationId, added);
    }
    if (notice.inboxOnly) return;
    const channels = (await channelsOf(db, notice.organizationId)).filter((c) => c.enabled && (rule.channels === "all" || rule.channels.includes(c.id)));
    // One delivery per channel and event, whichever node gets here first (deliveryQueue.ts).
    await this.deliveries.enqueue(
      notice,
      { severity, title: notice.title, body: notice.body, link: notice.link ? `${this.o.publicUrl}${notice.link}` : null },
      channels,
    );
  }

  async inboxChanged(organizationId: string, userSubs?: string[]): Promise<void> {
    await this.o.bus
      .publish({ type: "inboxChanged", organizationId, platformId: ORGANIZATION_WIDE, ...(userSubs ? { userSubs } : {}) })
      .catch((err: unknown) => this.o.log.warn({ err }, "cannot publish an inbox change on the bus"));
  }

  private sendBy(channel: ChannelRow, message: OutgoingMessage): Promise<number | null> {
    return sendByChannel(this.o, channel, message);
  }

  /** Mails the confirmation links of an e-mail channel's new (or pending) addresses, in the background. */
  confirmRecipients(organizationId: string, channelId: string, requests: readonly ConfirmationRequest[]): void {
    if (requests.length === 0) return;
    const { db, mailer, publicUrl, maxEmailsPerHour, log } = this.o;
    this.track(mailConfirmations({ db, mailer, publicUrl, maxEmailsPerHour, log }, organizationId, channelId, requests));
  }

  /** "Send test" (./testSend.ts). */
  async sendTest(channel: ChannelRow): Promise<TestResult> {
    return sendTest(this.o.db, this.o.publicUrl, (c, m) => this.sendBy(c, m), channel);
  }
}
