import type { AddressInfo } from "node:net";
import { SMTPServer } from "smtp-server";
import { simpleParser, type ParsedMail } from "mailparser";

export interface TestSmtpServer {
  /** `smtp://127.0.0.1:<port>`, for SMTP_URL. */
  url: string;
  /** Every message received so far, parsed. */
  received: ParsedMail[];
  /** The first received message that matches (waits for it to arrive). */
  next(match: (mail: ParsedMail) => boolean): Promise<ParsedMail>;
  close(): Promise<void>;
}

/** A real SMTP server on loopback (smtp-server; a free port unless given), keeping what it receives (mailparser). */
export async function startSmtpServer(port = 0): Promise<TestSmtpServer> {
  const received: ParsedMail[] = [];
  let waiters: (() => void)[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS", "AUTH"],
    logger: false,
    onData(stream, _session, callback) {
      simpleParser(stream).then(
        (mail) => {
          received.push(mail);
          const wake = waiters;
          waiters = [];
          for (const w of wake) w();
          callback();
        },
        (err: Error) => callback(err),
      );
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve());
  });
  const bound = (server.server.address() as AddressInfo).port;
  return {
    url: `smtp://127.0.0.1:${bound}`,
    received,
    async next(match) {
      for (;;) {
        const found = received.find(match);
        if (found) return found;
        await new Promise<void>((resolve) => waiters.push(resolve));
      }
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The invitation link in a message's text. */
export function invitationLinkIn(text: string | undefined): string {
  const link = /(https?:\/\/\S+#invitation=[A-Za-z0-9_-]+)/.exec(text ?? "")?.[1];
  if (!link) throw new Error(`no invitation link in: ${text}`);
  return link;
}

/** The 6-digit code of a confirmation e-mail. */
export function confirmationCodeIn(text: string | undefined): string {
  const code = /^(\d{6})$/m.exec(text ?? "")?.[1];
  if (!code) throw new Error(`no confirmation code in: ${text}`);
  return code;
}

/** The password-reset link of a message's text. */
export function resetLinkIn(text: string | undefined): string {
  const link = /(https?:\/\/\S+\/oidc\/password\/reset\?token=[A-Za-z0-9_-]+)/.exec(text ?? "")?.[1];
  if (!link) throw new Error(`no password-reset link in: ${text}`);
  return link;
}
