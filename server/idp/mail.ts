/**
 * How the embedded provider's own e-mail leaves (address confirmation codes, password-reset links;
 * docs/security.md "E-mail verification"). These go to a person who may belong to no organization
 * yet, so they never land in an organization's outbox, where another person could read a live code
 * or link:
 *
 * - with SMTP_URL: sent through it (nodemailer);
 * - without it, outside production (`npm run dev`, tests): the server-wide **development outbox**,
 *   kept in memory (the last 100 messages), written to the log in full and shown at
 *   `/oidc/dev/outbox`; a development server's people are its developers;
 * - without it, in production: nowhere. The pages say e-mail is not set up, and no code or link
 *   is ever written to the log.
 */
import type { FastifyBaseLogger } from "fastify";
import type { Config } from "../config.ts";
import { createMailer, type MailMessage } from "../mail/mailer.ts";

export interface DevOutboxMessage extends MailMessage {
  sentAt: Date;
}

export interface IdentityMail {
  readonly channel: "smtp" | "devOutbox" | "none";
  /** Throws when the message could not be handed over (or there is no channel). */
  send(message: MailMessage): Promise<void>;
  /** The development outbox, newest last (only with the `devOutbox` channel). */
  readonly devOutbox?: readonly DevOutboxMessage[];
  close(): void;
}

export const DEV_OUTBOX_PATH = "/oidc/dev/outbox";
const DEV_OUTBOX_SIZE = 100;

export function createIdentityMail(config: Pick<Config, "env" | "mail">, log: FastifyBaseLogger): IdentityMail {
  const smtp = createMailer(config.mail);
  if (smtp) return { channel: "smtp", send: (m) => smtp.send(m), close: () => smtp.close() };
  if (config.env !== "production") {
    const outbox: DevOutboxMessage[] = [];
    return {
      channel: "devOutbox",
      devOutbox: outbox,
      async send(message) {
        outbox.push({ ...message, sentAt: new Date() });
        if (outbox.length > DEV_OUTBOX_SIZE) outbox.shift();
        // Development only (never with NODE_ENV=production): the whole message, so a developer can follow it.
        log.info({ to: message.to, subject: message.subject, text: message.text }, `development outbox (no SMTP_URL): also at ${DEV_OUTBOX_PATH}`);
      },
      close() {},
    };
  }
  return {
    channel: "none",
    send() {
      return Promise.reject(new Error("No e-mail is sent: SMTP_URL is not set."));
    },
    close() {},
  };
}
