import { createServer, type Server, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMailer, SMTP_TIMEOUTS } from "../../../server/mail/mailer.ts";

// An SMTP server that accepts the connection and never says hello: without timeouts a send would
// wait on it for minutes (nodemailer's defaults), holding the delivery that asked.
describe("the SMTP mailer", () => {
  let silent: Server;
  const sockets: Socket[] = [];
  let port = 0;

  beforeAll(async () => {
    silent = createServer((socket) => void sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    port = (silent.address() as { port: number }).port;
  });
  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => silent.close(resolve));
  });

  it("gives up on a server that never greets, with an error the caller can log", async () => {
    const mailer = createMailer({ smtpUrl: `smtp://127.0.0.1:${port}`, from: "Toolbox <toolbox@example.test>" }, { ...SMTP_TIMEOUTS, greetingTimeout: 300 })!;
    try {
      await expect(mailer.send({ to: "a@example.test", subject: "Hello", text: "-" })).rejects.toThrow(/greeting/i);
    } finally {
      mailer.close();
    }
  });

  it("waits seconds, not minutes, by default", () => {
    expect(SMTP_TIMEOUTS.connectionTimeout).toBeLessThanOrEqual(15_000);
    expect(SMTP_TIMEOUTS.greetingTimeout).toBeLessThanOrEqual(15_000);
    expect(SMTP_TIMEOUTS.socketTimeout).toBeLessThanOrEqual(60_000);
  });
});
