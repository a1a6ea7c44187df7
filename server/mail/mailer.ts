/**
 * Sending e-mail, behind one small interface: invitations (server/modules/members) and the
 * notifications' e-mail channel (server/modules/notifications) do not depend on how mail leaves.
 * With SMTP_URL, nodemailer sends it; without, invitations go to the organization's outbox table
 * (members area) and notification e-mails to an in-memory outbox that logs recipients' count and
 * subject only.
 */
import nodemailer from "nodemailer";
import type { Config } from "../config.ts";

export interface MailMessage {
  /** One address, or several (each receives the message). */
  to: string | string[];
  subject: string;
  text: string;
}

export interface Mailer {
  send(message: MailMessage): Promise<void>;
  close?(): void;
}

/**
 * How long a send may wait on the SMTP server, in milliseconds. nodemailer's own defaults (two
 * minutes to connect, ten of silence) would hold a notification delivery or a sign-up request far
 * longer than a person waits; a failed send is retried by the caller where it matters. Settings in
 * SMTP_URL's query string (e.g. `?socketTimeout=120000`) take precedence.
 */
export const SMTP_TIMEOUTS = { connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 30_000 };

/** The mailer of SMTP_URL, or undefined when none is configured. */
export function createMailer(mail: Config["mail"], timeouts: typeof SMTP_TIMEOUTS = SMTP_TIMEOUTS): (Mailer & { close(): void }) | undefined {
  if (!mail.smtpUrl) return undefined;
  const transport = nodemailer.createTransport({ url: mail.smtpUrl, ...timeouts });
  return {
    async send(message) {
      await transport.sendMail({ from: mail.from, to: message.to, subject: message.subject, text: message.text });
    },
    close() {
      transport.close();
    },
  };
}

export interface OutboxMailer extends Mailer {
  /** The messages "sent", oldest first (at most the last 100). */
  readonly sent: readonly MailMessage[];
}

/** Keeps what would have been sent (no SMTP configured): the last 100 messages, in memory. */
export function outboxMailer(log?: { info(details: object, message: string): void }): OutboxMailer {
  const sent: MailMessage[] = [];
  return {
    sent,
    async send(message) {
      sent.push(message);
      if (sent.length > 100) sent.shift();
      const recipients = Array.isArray(message.to) ? message.to.length : 1;
      log?.info({ to: recipients, subject: message.subject }, "e-mail kept in the outbox (no SMTP sending configured)");
    },
  };
}
