/**
 * The event bus at the trade feed's busiest: trade events published in batches per tick (as the
 * trade feed does) at a target rate, one subscriber, for each implementation. Prints events per
 * second published and delivered, the delivery lag p50/p99, and the process's CPU per 10,000
 * events. NATS: the machine's server (NATS_URL or 127.0.0.1:4222), a stream of its own, deleted after.
 */
import { randomUUID } from "node:crypto";
import { jetstreamManager } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";
import type { TradeEvent } from "../core/trading/index.ts";
import type { EventBus } from "../server/events/bus.ts";
import { createInProcessBus } from "../server/events/inProcess.ts";
import { createNatsBus } from "../server/events/nats.ts";
import type { DomainEvent } from "../server/events/types.ts";

const NATS_URL = process.env.NATS_URL ?? "nats://127.0.0.1:4222";

interface Figures {
  published: number;
  delivered: number;
  p50: number;
  p99: number;
  cpuMsPer10k: number;
}

async function measure(bus: EventBus, ratePerSecond: number, seconds: number): Promise<Figures> {
  const organizationId = randomUUID();
  const platformId = randomUUID();
  const lags: number[] = [];
  let delivered = 0;
  bus.subscribe({ types: ["trade"], organizationId }, (m) => {
    delivered++;
    if (m.event.type === "trade" && delivered % 10 === 0) lags.push(Date.now() - m.event.event.time);
  });
  const total = ratePerSecond * seconds;
  const tickMs = 20;
  const perTick = Math.round((ratePerSecond * tickMs) / 1000);
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  let sequence = 0;
  let inFlight: Promise<void> = Promise.resolve();
  while (sequence < total) {
    const batch: DomainEvent[] = [];
    for (let i = 0; i < perTick && sequence < total; i++) {
      const event = { type: "dealAdded", sequence: ++sequence, time: Date.now(), login: String(1000 + (sequence % 500)), deal: { id: String(sequence) } };
      batch.push({ type: "trade", organizationId, platformId, event: event as unknown as TradeEvent });
    }
    const previous = inFlight;
    inFlight = previous.then(() => bus.publish(batch));
    const due = started + (sequence / ratePerSecond) * 1000;
    await new Promise((r) => setTimeout(r, Math.max(0, due - performance.now())));
  }
  await inFlight;
  const publishedIn = (performance.now() - started) / 1000;
  const deadline = Date.now() + 30_000;
  while (delivered < total && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
  const deliveredIn = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  lags.sort((a, b) => a - b);
  return {
    published: total / publishedIn,
    delivered: delivered / deliveredIn,
    p50: lags[Math.floor(lags.length * 0.5)] ?? NaN,
    p99: lags[Math.floor(lags.length * 0.99)] ?? NaN,
    cpuMsPer10k: ((cpu.user + cpu.system) / 1000 / total) * 10_000,
  };
}

export async function measureEventBus({ line, rate = 20_000, seconds = 3 }: { line: (text: string) => void; rate?: number; seconds?: number }) {
  line(`== Event bus: ${rate.toLocaleString("en-US")} trade events/s for ${seconds} s, one subscriber ==`);
  const print = (name: string, f: Figures) =>
    line(
      `${name.padEnd(12)} published ${Math.round(f.published).toLocaleString("en-US")}/s, delivered ${Math.round(f.delivered).toLocaleString("en-US")}/s, ` +
        `lag p50 ${f.p50} ms p99 ${f.p99} ms, CPU ${f.cpuMsPer10k.toFixed(0)} ms per 10,000 events (publisher and subscriber in this process)`,
    );
  const inProcess = createInProcessBus();
  print("in-process", await measure(inProcess, rate, seconds));
  await inProcess.close();

  const stream = `TOOLBOX_BENCH_${randomUUID().slice(0, 8)}`;
  const nats = createNatsBus({ url: NATS_URL, stream, subjectPrefix: `toolbox-bench.${stream}`, storage: "file" });
  try {
    await Promise.race([nats.ready, new Promise((_, reject) => setTimeout(() => reject(new Error(`no NATS at ${NATS_URL}`)), 5_000))]);
    print("NATS", await measure(nats, rate, seconds));
  } catch (error) {
    line(`NATS: not measured (${(error as Error).message})`);
  } finally {
    await nats.close();
    const nc = await connect({ servers: NATS_URL }).catch(() => null);
    if (nc) {
      await (await jetstreamManager(nc)).streams.delete(stream).catch(() => false);
      await nc.close();
    }
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await measureEventBus({
    line: (text) => console.log(text),
    rate: Number(process.env.BENCH_BUS_RATE ?? 20_000),
    seconds: Number(process.env.BENCH_BUS_SECONDS ?? 3),
  });
}
