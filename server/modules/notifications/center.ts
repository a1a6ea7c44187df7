/**
 * The notification center of one node: follows the event bus (all organizations), turns events
 * into notices (./notices below), writes them to the members' inboxes as the organization's rules
 * say, tells open inbox streams (`inboxChanged` on the bus), and hands them to the organization's
 * channels: each delivery logged, retried with backoff, and a channel that keeps failing switched
 * off with a notice to the administrators. docs/notifications.md.
 */
import { and, eq, sql } from "drizzle-orm";
import type { FastifyBaseLogger } from "fastify";
import { CHANNEL_KINDS, DEFAULT_SEVERITY, type ChannelKind, type NotificationSeverity, type NotificationType } from "../../../core/schemas/notifications.ts";
import { moneyFromDecimal } from "../../../core/trading/index.ts";
import type { Db } from "../../db/client.ts";
import { notificationChannels, notificationDeliveries, tradePlatforms } from "../../db/schema.ts";
import type { EventBus } from "../../events/bus.ts";
import { ORGANIZATION_WIDE, type BusMessage, type DomainEvent } from "../../events/types.ts";
import type { Mailer } from "../../mail/mailer.ts";
import type { TargetPolicy } from "../../net/targets.ts";
import type { SecretCipher } from "../../secrets/cipher.ts";
import { DeliveryQueue } from "./deliveryQueue.ts";
import { FlapFilter } from "./flapFilter.ts";
import { getSettings, insertNotifications, recipientsOf, ruleOf, sweepRetention, type ChannelRow } from "./repository.ts";
import { confirmedAddresses, mailConfirmations, type ConfirmationRequest } from "./emailRecipients.ts";
import { mailLimitMessage, takeMailAllowance } from "./mailLimit.ts";
import { DeliveryFailed, DeliveryWithheld, send, type OutgoingMessage } from "./senders.ts";

export interface Notice {
  organizationId: string;
  type: NotificationType;
  severity?: NotificationSeverity;
  title: string;
  body: string;
  /** App path of the subject, e.g. /tradePlatforms/MT5/<id>/settings. */
  link: string | null;
  /** Same key, same notice: written once per member. */
  dedupeKey: string;
  /** Only to the inbox (a channel's own trouble is not sent through channels). */
  inboxOnly?: boolean;
  /** Overrides the rule's members (e.g. administrators for channel trouble). */
  members?: "admins";
}

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

export interface TestResult {
  delivered: boolean;
  status: number | null;
  error: string | null;
}

const WATCHED = [
  "platformState",
  "platformRemoved",
  "balanceOperationDone",
  "copierFailure",
  "copierDivergence",
  "leverageChanged",
  "memberJoined",
  "memberLeft",
  "memberTwoFactorReset",
  "securitySettingsChanged",
] as const;

export class NotificationCenter {
  private subscription: { close(): void } | null = null;
  private retention: ReturnType<typeof setInterval> | null = null;
  private readonly running = new Set<Promise<unknown>>();
  private readonly flaps: FlapFilter;
  private readonly deliveries: DeliveryQueue;
  private stopped = false;

  constructor(readonly o: NotificationCenterOptions) {
    this.flaps = new FlapFilter(o.reconnectSettleMs, (platformId, t) =>
      this.track(this.onTransition(platformId, t.kind, t.kind === "disconnected" ? t.reason : null, t.seq)),
    );
    this.deliveries = new DeliveryQueue({
      db: o.db,
      log: o.log,
      maxAttempts: o.maxAttempts,
      retryBaseMs: o.retryBaseMs,
      pollEveryMs: o.pollEveryMs,
      channel: async (id) => (await o.db.select().from(notificationChannels).where(eq(notificationChannels.id, id)))[0],
      send: (channel, message) => this.sendBy(channel, message),
      delivered: async (channel) => {
        await o.db.update(notificationChannels).set({ consecutiveFailures: 0 }).where(eq(notificationChannels.id, channel.id));
      },
      gaveUp: (channel, error) => this.failed(channel, error),
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

  private async onEvent({ seq, event }: BusMessage<Extract<DomainEvent, { type: (typeof WATCHED)[number] }>>): Promise<void> {
    switch (event.type) {
      case "platformState":
        this.flaps.observe(event.platformId, event.state, event.lastError, seq);
        return;
      case "platformRemoved":
        this.flaps.forget(event.platformId);
        return;
      case "balanceOperationDone": {
        const { largeBalanceThreshold } = await getSettings(this.o.db, event.organizationId);
        if (largeBalanceThreshold === null || moneyFromDecimal(event.amount) < moneyFromDecimal(largeBalanceThreshold)) return;
        const platform = await this.platformOf(event.organizationId, event.platformId);
        return this.notify({
          organizationId: event.organizationId,
          type: "largeBalanceOperation",
          title: `Large ${words(event.operationType)}: ${event.amount} on ${event.login}`,
          body: `${event.actorName ?? "A member"} made a ${words(event.operationType)} of ${event.amount} on account ${event.login} of ${platform?.name ?? "a platform"} (threshold ${largeBalanceThreshold}).`,
          link: `/users?platform=${event.platformId}&login=${encodeURIComponent(event.login)}`,
          dedupeKey: `largeBalanceOperation:${event.operationId}`,
        });
      }
      case "copierFailure":
      case "copierDivergence": {
        const platform = await this.platformOf(event.organizationId, event.platformId);
        return this.notify({
          organizationId: event.organizationId,
          type: event.type,
          title: `${event.type === "copierFailure" ? "Copier failure" : "Copier divergence"} on ${platform?.name ?? "a platform"}`,
          body: event.message,
          link: "/apps/trades-copier/status",
          dedupeKey: `${event.type}:${event.linkId}:${seq}`,
        });
      }
      case "leverageChanged": {
        const platform = await this.platformOf(event.organizationId, event.platformId);
        return this.notify({
          organizationId: event.organizationId,
          type: "leverageChanged",
          title: `Leverage of ${event.login} changed to 1:${event.to}`,
          body: `${event.plugin} changed the leverage of account ${event.login} on ${platform?.name ?? "a platform"} from 1:${event.from} to 1:${event.to}.`,
          link: platform ? `/tradePlatforms/${platform.type}/${event.platformId}/settings/plugins` : null,
          dedupeKey: `leverageChanged:${seq}`,
        });
      }
      case "memberJoined":
      case "memberLeft":
        return this.notify({
          organizationId: event.organizationId,
          type: event.type,
          title: `${event.name ?? "A member"} ${event.type === "memberJoined" ? "joined" : "left"} the organization`,
          body: `${event.name ?? event.sub} ${event.type === "memberJoined" ? "is now a member" : "is no longer a member"}.`,
          link: "/settings/members",
          dedupeKey: `${event.type}:${event.sub}:${seq}`,
        });
      case "memberTwoFactorReset":
        // Always the administrators: the person's second factor is a security matter, whoever reset it.
        return this.notify({
          organizationId: event.organizationId,
          type: "memberTwoFactorReset",
          title: `${event.name ?? "A member"}'s two-factor sign-in was reset`,
          body: `${event.actorName ?? "An administrator"} of ${event.byOrganizationName} reset the two-factor sign-in of ${event.name ?? event.sub}. They must set up a new device at their next sign-in.`,
          link: "/settings/members",
          dedupeKey: `memberTwoFactorReset:${event.resetId}`,
          members: "admins",
        });
      case "securitySettingsChanged":
        return this.notify({
          organizationId: event.organizationId,
          type: "securitySettingsChanged",
          title: "Security settings changed",
          body: `${event.actorName ?? "A member"} changed the security settings: ${event.summary}`,
          link: "/settings/security",
          dedupeKey: `securitySettingsChanged:${seq}`,
        });
    }
  }

  private async onTransition(platformId: string, kind: "disconnected" | "reconnected", reason: string | null, seq: number): Promise<void> {
    const [platform] = await this.o.db
      .select({ organizationId: tradePlatforms.organizationId, name: tradePlatforms.name, type: tradePlatforms.type })
      .from(tradePlatforms)
      .where(eq(tradePlatforms.id, platformId));
    if (!platform) return;
    const down = kind === "disconnected";
    await this.notify({
      organizationId: platform.organizationId,
      type: down ? "platformDisconnected" : "platformReconnected",
      title: `${platform.name} ${down ? "disconnected" : "reconnected"}`,
      body: down ? `Toolbox lost its connection to ${platform.name}${reason ? `: ${reason}` : "."}` : `Toolbox is connected to ${platform.name} again.`,
      link: `/tradePlatforms/${platform.type}/${platformId}/settings`,
      dedupeKey: `${kind}:${platformId}:${seq}`,
    });
  }

  private async platformOf(organizationId: string, platformId: string) {
    if (platformId === ORGANIZATION_WIDE) return undefined;
    const [row] = await this.o.db
      .select({ name: tradePlatforms.name, type: tradePlatforms.type })
      .from(tradePlatforms)
      .where(and(eq(tradePlatforms.id, platformId), eq(tradePlatforms.organizationId, organizationId)));
    return row;
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
    const channels = (await db.select().from(notificationChannels).where(eq(notificationChannels.organizationId, notice.organizationId))).filter(
      (c) => c.enabled && (rule.channels === "all" || rule.channels.includes(c.id)),
    );
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

  private secretOf(channel: ChannelRow): string | null {
    return channel.secretCiphertext ? this.o.cipher.decrypt(channel.secretCiphertext, channel.id) : null;
  }

  /**
   * Sends by the channel's kind. An e-mail goes to the addresses that confirmed only
   * (./emailRecipients.ts), within the organization's hourly allowance (./mailLimit.ts); otherwise
   * it is withheld.
   */
  private async sendBy(channel: ChannelRow, message: OutgoingMessage): Promise<number | null> {
    const { policy, telegramApiUrl, mailer, db, maxEmailsPerHour } = this.o;
    let settings = channel.settings as Record<string, unknown>;
    if (kindOf(channel) === "email") {
      const to = await confirmedAddresses(db, channel.id);
      if (to.length === 0) throw new DeliveryWithheld("Not sent: no recipient of this channel has confirmed their address yet.");
      if (!(await takeMailAllowance(db, channel.organizationId, to.length, maxEmailsPerHour))) throw new DeliveryWithheld(mailLimitMessage(maxEmailsPerHour));
      settings = { ...settings, to };
    }
    return send({ policy, telegramApiUrl, mailer }, kindOf(channel), settings, this.secretOf(channel), message);
  }

  /** Mails the confirmation links of an e-mail channel's new (or pending) addresses, in the background. */
  confirmRecipients(organizationId: string, channelId: string, requests: readonly ConfirmationRequest[]): void {
    if (requests.length === 0) return;
    const { db, mailer, publicUrl, maxEmailsPerHour, log } = this.o;
    this.track(mailConfirmations({ db, mailer, publicUrl, maxEmailsPerHour, log }, organizationId, channelId, requests));
  }

  /** A delivery gave up: one more failure in a row; at disableAfter the channel is switched off and the administrators told. */
  private async failed(channel: ChannelRow, error: string): Promise<void> {
    const { db, disableAfter } = this.o;
    const [row] = await db
      .update(notificationChannels)
      .set({ consecutiveFailures: sql`${notificationChannels.consecutiveFailures} + 1` })
      .where(eq(notificationChannels.id, channel.id))
      .returning();
    if (!row || !row.enabled || row.consecutiveFailures < disableAfter) return;
    const reason = `Switched off after ${row.consecutiveFailures} failed deliveries in a row; the last: ${error}`.slice(0, 500);
    const [disabled] = await db
      .update(notificationChannels)
      .set({ enabled: false, disabledReason: reason, updatedAt: new Date() })
      .where(and(eq(notificationChannels.id, channel.id), eq(notificationChannels.enabled, true)))
      .returning({ id: notificationChannels.id });
    if (!disabled) return;
    await this.notify({
      organizationId: row.organizationId,
      type: "channelDisabled",
      title: `Notification channel "${row.name}" switched off`,
      body: reason,
      link: "/settings/notifications",
      dedupeKey: `channelDisabled:${row.id}:${Date.now()}`,
      inboxOnly: true,
      members: "admins",
    });
  }

  /** "Send test": one try now, logged like any delivery, not counted against the channel. */
  async sendTest(channel: ChannelRow): Promise<TestResult> {
    const { db } = this.o;
    const [delivery] = await db
      .insert(notificationDeliveries)
      .values({ organizationId: channel.organizationId, channelId: channel.id, type: "test", status: "pending" })
      .returning({ id: notificationDeliveries.id, createdAt: notificationDeliveries.createdAt });
    const message: OutgoingMessage = {
      deliveryId: delivery!.id,
      organizationId: channel.organizationId,
      type: "test",
      severity: "info",
      title: "Test notification from Toolbox",
      body: `This is a test of the channel "${channel.name}". If you read this, it works.`,
      link: `${this.o.publicUrl}/settings/notifications`,
      occurredAt: delivery!.createdAt.toISOString(),
      test: true,
    };
    const where = eq(notificationDeliveries.id, delivery!.id);
    try {
      const status = await this.sendBy(channel, message);
      await db.update(notificationDeliveries).set({ status: "delivered", attempts: 1, lastStatus: status, updatedAt: new Date() }).where(where);
      return { delivered: true, status, error: null };
    } catch (err) {
      const failure = err instanceof DeliveryFailed ? err : new DeliveryFailed((err as Error).message);
      await db
        .update(notificationDeliveries)
        .set({ status: "failed", attempts: 1, lastStatus: failure.status, lastError: failure.message.slice(0, 500), updatedAt: new Date() })
        .where(where);
      return { delivered: false, status: failure.status, error: failure.message };
    }
  }
}

function kindOf(channel: ChannelRow): ChannelKind {
  return (CHANNEL_KINDS as readonly string[]).includes(channel.kind) ? (channel.kind as ChannelKind) : "webhook";
}

function words(operationType: string): string {
  return operationType.replace(/([A-Z])/g, " $1").toLowerCase();
}
