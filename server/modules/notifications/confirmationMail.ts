/**
 * The confirmation e-mails of an e-mail channel's recipients (docs/notifications.md, "E-mail
 * recipients confirm"): anyone who may edit an organization's channels could otherwise make
 * Toolbox mail any address, repeatedly. Every mail counts against the organization's hourly
 * allowance (./mailLimitRepository.ts).
 *
 * The messages carry no name an organization chose (its name, a channel's or a platform's could
 * be phishing text): fixed wording and an identifier.
 */
import type { FastifyBaseLogger } from "fastify";
import type { Db } from "../../db/client.ts";
import type { Mailer } from "../../mail/mailer.ts";
import { takeMailAllowance } from "./mailLimitRepository.ts";
import { CONFIRMATION_DAYS, type ConfirmationRequest } from "./recipientRepository.ts";

/** The short identifier a channel's mails name it by (never its name). */
export const channelRef = (channelId: string) => channelId.slice(0, 8);

export interface ConfirmationMailer {
  db: Db;
  mailer: Mailer;
  publicUrl: string;
  maxEmailsPerHour: number;
  log: FastifyBaseLogger;
}

/**
 * Mails each request its confirmation link, one message per address, each counted against the
 * organization's hourly allowance; past it the rest stay pending (sent again from the channel's
 * settings later). Returns how many were sent.
 */
export async function mailConfirmations(
  o: ConfirmationMailer,
  organizationId: string,
  channelId: string,
  requests: readonly ConfirmationRequest[],
): Promise<number> {
  let sent = 0;
  for (const { address, token } of requests) {
    if (!(await takeMailAllowance(o.db, organizationId, 1, o.maxEmailsPerHour))) {
      o.log.warn(
        { organizationId, channelId, withheld: requests.length - sent },
        "confirmation e-mails withheld: the organization's hourly e-mail limit is reached",
      );
      break;
    }
    const link = `${o.publicUrl}/api/notifications/recipients/confirm?token=${token}`;
    try {
      await o.mailer.send({
        to: address,
        subject: `Confirm e-mail notifications from Toolbox (channel ${channelRef(channelId)})`,
        text: [
          "A Toolbox organization added this address to one of its notification channels",
          `(channel ${channelRef(channelId)}, organization ${organizationId}).`,
          "",
          "Toolbox sends it nothing unless you confirm. To receive its notifications, open:",
          link,
          "",
          `The link works until ${new Date(Date.now() + CONFIRMATION_DAYS * 86_400_000).toUTCString()}.`,
          "If you did not expect this, ignore this message: nothing more will be sent to you.",
        ].join("\n"),
      });
      sent++;
    } catch (err) {
      o.log.warn({ err: (err as Error).message, organizationId, channelId }, "a confirmation e-mail could not be sent");
    }
  }
  return sent;
}
