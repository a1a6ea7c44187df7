/**
 * How one message leaves by each channel kind: a signed webhook POST, a Telegram Bot API
 * `sendMessage`, an e-mail through the Mailer. Each throws DeliveryFailed with what went wrong in
 * plain words (never the secret) and, for HTTP, the status the receiver answered.
 */
import crypto from "node:crypto";
import { NOTIFICATION_TYPE_LABELS, type NotificationType } from "../../../core/notifications.ts";
import type { ChannelKind } from "../../../core/schemas/notifications.ts";
import type { Mailer } from "../../mail/mailer.ts";
import { postTo } from "../../net/post.ts";
import type { TargetPolicy } from "../../net/targets.ts";

/**
 * A send Toolbox itself held back (no recipient confirmed, the organization's e-mail limit
 * reached): logged as failed with the reason, not tried again, and not counted as the channel
 * failing (it would switch the channel off).
 */
export class DeliveryWithheld extends Error {}

export class DeliveryFailed extends Error {
  constructor(
    message: string,
    readonly status: number | null = null,
  ) {
    super(message);
  }
}

/** What is sent, whatever the channel. */
export interface OutgoingMessage {
  /** The delivery's id: the same on every retry, so a receiver can drop repeats. */
  deliveryId: string;
  organizationId: string;
  type: string;
  severity: string;
  title: string;
  body: string;
  /** Absolute URL of the subject in Toolbox, or null. */
  link: string | null;
  occurredAt: string;
  test: boolean;
}

export interface SenderContext {
  policy: TargetPolicy;
  telegramApiUrl: string;
  mailer: Mailer;
  timeoutMs?: number;
}

export const SIGNATURE_HEADER = "Toolbox-Signature";
export const TIMESTAMP_HEADER = "Toolbox-Timestamp";

/** HMAC-SHA256 of `<timestamp>.<body>` under the secret, hex: the `v1=` of Toolbox-Signature (docs/notifications.md). */
export function webhookSignature(secret: string, timestamp: number, body: string): string {
  return crypto.createHmac("sha256", secret).update(`${timestamp}.${body}`).digest("hex");
}

export function webhookBody(message: OutgoingMessage): string {
  const { deliveryId, organizationId, type, severity, title, body, link, occurredAt, test } = message;
  return JSON.stringify({ id: deliveryId, organizationId, type, severity, title, body, link, occurredAt, test });
}

export async function send(
  ctx: SenderContext,
  kind: ChannelKind,
  settings: Record<string, unknown>,
  secret: string | null,
  message: OutgoingMessage,
  now: () => number = Date.now,
): Promise<number | null> {
  try {
    if (kind === "webhook") {
      const body = webhookBody(message);
      const timestamp = Math.floor(now() / 1000);
      const answer = await postTo(
        ctx.policy,
        String(settings.url),
        body,
        {
          [TIMESTAMP_HEADER]: String(timestamp),
          [SIGNATURE_HEADER]: `t=${timestamp},v1=${webhookSignature(secret ?? "", timestamp, body)}`,
          "Toolbox-Event": message.type,
          "Toolbox-Delivery": message.deliveryId,
        },
        ctx.timeoutMs,
      );
      if (answer.status < 200 || answer.status >= 300) throw new DeliveryFailed(`the receiver answered HTTP ${answer.status}`, answer.status);
      return answer.status;
    }
    if (kind === "telegram") {
      const text = `${message.test ? "[Test] " : ""}${message.title}\n${message.body}${message.link ? `\n${message.link}` : ""}`;
      const answer = await postTo(
        ctx.policy,
        `${ctx.telegramApiUrl}/bot${secret ?? ""}/sendMessage`,
        JSON.stringify({ chat_id: settings.chatId, text, disable_web_page_preview: true }),
        {},
        ctx.timeoutMs,
      );
      if (answer.status < 200 || answer.status >= 300) {
        let description = "";
        try {
          const said = (JSON.parse(answer.body) as { description?: unknown }).description;
          if (typeof said === "string") description = said;
        } catch {
          // not JSON: the status says enough
        }
        throw new DeliveryFailed(`Telegram answered HTTP ${answer.status}${description ? `: ${description.slice(0, 200)}` : ""}`, answer.status);
      }
      return answer.status;
    }
    await ctx.mailer.send({
      to: (settings.to as string[]) ?? [],
      subject: mailSubject(message),
      text: `${message.body}${message.link ? `\n\n${message.link}` : ""}`,
    });
    return null;
  } catch (err) {
    if (err instanceof DeliveryFailed || err instanceof DeliveryWithheld) throw err;
    // Never the URL (a Telegram URL holds the bot token): the error's own words only.
    const words = (err as Error).message.replaceAll(secret ?? "\u0000", "***");
    throw new DeliveryFailed(words);
  }
}

/**
 * An e-mail's subject: fixed wording (the notification type's label) and the delivery's
 * reference, never the title: titles hold names an organization chose (a platform's, a member's,
 * a channel's), and a subject is what a phishing text would need. The body carries the details.
 */
export function mailSubject(message: Pick<OutgoingMessage, "type" | "test" | "deliveryId">): string {
  const label = message.test ? "Test notification" : (NOTIFICATION_TYPE_LABELS[message.type as NotificationType] ?? "Notification");
  return `Toolbox: ${label} (ref ${message.deliveryId.slice(0, 8)})`;
}
