/**
 * Child process of bench/tradesBlotter.ts: N Server-Sent-Events clients of the blotter stream, in
 * Node (not browsers), so their reading costs nothing to the server's process. Each connects from
 * its own loopback address (127.0.x.y), as the stream's rate limit counts per address. The last
 * `slow` of them stop reading after a second: the server must hold them within its bound.
 *
 * Options in BENCH_SUBSCRIBERS (JSON). Protocol on stdin/stdout (one JSON line each): it prints {ready, statuses} once every response
 * has started; "start" zeroes the byte counts, "stop" prints {seconds, bytes[], slow} and exits.
 */
import http from "node:http";
import readline from "node:readline";

interface Options {
  url: string;
  headers: Record<string, string>;
  count: number;
  slow: number;
}

const options = JSON.parse(process.env.BENCH_SUBSCRIBERS ?? "{}") as Options;
const bytes = new Array<number>(options.count).fill(0);
const statuses = new Array<number>(options.count).fill(0);
const requests: http.ClientRequest[] = [];
let started = performance.now();
let opened = 0;

const addressOf = (i: number) => `127.0.${1 + Math.floor(i / 200)}.${(i % 200) + 2}`;

for (let i = 0; i < options.count; i++) {
  const slow = i >= options.count - options.slow;
  const request = http.get(options.url, { headers: options.headers, localAddress: addressOf(i), agent: false }, (res) => {
    statuses[i] = res.statusCode ?? 0;
    res.on("data", (chunk: Buffer) => {
      bytes[i] = (bytes[i] ?? 0) + chunk.length;
    });
    res.on("error", () => {});
    if (slow) setTimeout(() => res.pause(), 1000);
    if (++opened === options.count) console.log(JSON.stringify({ ready: true, statuses }));
  });
  request.on("error", (error) => {
    statuses[i] = -1;
    console.error(`subscriber ${i}: ${error.message}`);
    if (++opened === options.count) console.log(JSON.stringify({ ready: true, statuses }));
  });
  requests.push(request);
}

readline.createInterface({ input: process.stdin }).on("line", (command) => {
  if (command === "start") {
    bytes.fill(0);
    started = performance.now();
  } else if (command === "stop") {
    console.log(JSON.stringify({ seconds: (performance.now() - started) / 1000, bytes, slow: options.slow }));
    for (const r of requests) r.destroy();
    process.exit(0);
  }
});
