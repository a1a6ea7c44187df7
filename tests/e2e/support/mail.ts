/**
 * The browser tests' mailbox: a real SMTP server (tests/helpers/smtp.ts) on the port the e-2-e
 * file's Toolbox mails to (its SMTP_URL, tests/e2e/globalSetup.ts), started before a describe block's
 * tests and closed after them (each server serves one file at a time, so its port is free). Call `mailbox()` in the describe block; the tests read what arrived
 * with `mail.next(…)`.
 */
import { afterAll, beforeAll } from "vitest";
import { startSmtpServer, type TestSmtpServer } from "../../helpers/smtp.ts";
import { server as toolbox } from "../browser.ts";

export type Mailbox = Pick<TestSmtpServer, "next">;

export function mailbox(): Mailbox {
  let server: TestSmtpServer | undefined;
  beforeAll(async () => {
    server = await startSmtpServer(toolbox().smtpPort);
  });
  afterAll(async () => {
    await server?.close();
  });
  return {
    next(match) {
      if (!server) throw new Error("The mailbox is read before its SMTP server started: call mailbox() in a describe block, read it in a test.");
      return server.next(match);
    },
  };
}
