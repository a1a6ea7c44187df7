/**
 * An HTTP server run by a test on 127.0.0.1: a webhook receiver or a stand-in of the Telegram Bot
 * API. It records every request and answers with the statuses queued by the test (then 200).
 */
import http from "node:http";
import type { AddressInfo } from "node:net";

export interface Received {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export interface Receiver {
  url: string;
  received: Received[];
  /** The next answers' statuses, in order; afterwards `fallback`. */
  answers: number[];
  fallback: number;
  /** While set, requests are recorded at once but answered only when it resolves. */
  hold: Promise<void> | null;
  /** Resolves once `n` requests have arrived. */
  until(n: number, what?: string): Promise<Received[]>;
  close(): Promise<void>;
}

export async function startReceiver(answerBody: (r: Received) => string = () => "{}"): Promise<Receiver> {
  const received: Received[] = [];
  const waiters: (() => void)[] = [];
  const server = http.createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (c: string) => (body += c));
    req.on("end", () => {
      const r = { method: req.method ?? "", url: req.url ?? "", headers: req.headers, body };
      received.push(r);
      for (const w of waiters.splice(0)) w();
      void (receiver.hold ?? Promise.resolve()).then(() => {
        const status = receiver.answers.shift() ?? receiver.fallback;
        res
          .writeHead(status, { "content-type": "application/json" })
          .end(status < 300 ? answerBody(r) : JSON.stringify({ ok: false, description: "Bad Request: chat not found" }));
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const receiver: Receiver = {
    url: `http://127.0.0.1:${port}`,
    received,
    answers: [],
    fallback: 200,
    hold: null,
    async until(n, what = `${n} requests`) {
      const deadline = Date.now() + 10_000;
      while (received.length < n) {
        if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}; got ${received.length}`);
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 200);
        });
      }
      return received;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return receiver;
}
