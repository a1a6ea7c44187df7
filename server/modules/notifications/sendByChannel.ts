/**
 * Sends one message through one channel by the channel's kind: its secret decrypted, and an
 * e-mail only to the addresses that confirmed (./recipientRepository.ts) within the organization's
 * hourly allowance (./mailLimitRepository.ts), otherwise withheld. The transports are in ./senders.ts.
 */
import { CHANNEL_KINDS, type ChannelKind } from "../../../core/schemas/notifications.ts";
import type { Db } from "../../db/client.ts";
import type { Mailer } from "../../mail/mailer.ts";
import type { TargetPolicy } from "../../net/targets.ts";
import type { SecretCipher } from "../../secrets/cipher.ts";
import { confirmedAddresses } from "./recipientRepository.ts";
import { mailLimitMessage, takeMailAllowance } from "./mailLimitRepository.ts";
import type { ChannelRow } from "./repository.ts";
import { DeliveryWithheld, send, type OutgoingMessage } from "./senders.ts";

export interface ChannelSendDeps {
  db: Db;
  cipher: SecretCipher;
  mailer: Mailer;
  policy: TargetPolicy;
  telegramApiUrl: string;
  maxEmailsPerHour: number;
}

/** The receiver's HTTP status (webhooks), or null; throws DeliveryFailed or DeliveryWithheld. */
export async function sendByChannel(deps: ChannelSendDeps, channel: ChannelRow, message: OutgoingMessage): Promise<number | null> {
  const { policy, telegramApiUrl, mailer, db, maxEmailsPerHour, cipher } = deps;
  let settings = channel.settings as Record<string, unknown>;
  if (kindOf(channel) === "email") {
    const to = await confirmedAddresses(db, channel.id);
    if (to.length === 0) throw new DeliveryWithheld("Not sent: no recipient of this channel has confirmed their address yet.");
    if (!(await takeMailAllowance(db, channel.organizationId, to.length, maxEmailsPerHour))) throw new DeliveryWithheld(mailLimitMessage(maxEmailsPerHour));
    settings = { ...settings, to };
  }
  const secret = channel.secretCiphertext ? cipher.decrypt(channel.secretCiphertext, channel.id) : null;
  return send({ policy, telegramApiUrl, mailer }, kindOf(channel), settings, secret, message);
}

function kindOf(channel: ChannelRow): ChannelKind {
  return (CHANNEL_KINDS as readonly string[]).includes(channel.kind) ? (channel.kind as ChannelKind) : "webhook";
}
