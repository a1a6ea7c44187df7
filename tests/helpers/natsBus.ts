/**
 * NATS JetStream for tests: the machine's server (NATS_TEST_URL, by default 127.0.0.1:4222, which
 * `.ci/run` starts), a stream and subject prefix of the test's own (so parallel runs and CI never
 * share one), deleted afterwards. A test that needs NATS fails when no server answers: it never
 * skips.
 */
import { randomBytes } from "node:crypto";
import { jetstreamManager } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";
import { createNatsBus, type NatsBus, type NatsBusOptions } from "../../server/events/nats.ts";

export const NATS_TEST_URL = process.env.NATS_TEST_URL ?? "nats://127.0.0.1:4222";

export interface TestStream {
  stream: string;
  subjectPrefix: string;
  /** A bus (a node) on this stream; closed by `drop`. */
  bus(options?: Partial<NatsBusOptions>): Promise<NatsBus>;
  /** Closes every bus made here and deletes the stream. */
  drop(): Promise<void>;
}

export async function natsTestStream(): Promise<TestStream> {
  const id = randomBytes(6).toString("hex");
  const stream = `TOOLBOX_TEST_${id}`;
  const subjectPrefix = `toolbox-test.${id}`;
  const buses: NatsBus[] = [];
  await assertNatsAnswers();
  return {
    stream,
    subjectPrefix,
    async bus(options = {}) {
      const bus = createNatsBus({ url: NATS_TEST_URL, stream, subjectPrefix, storage: "memory", name: `toolbox-test-${id}`, ...options });
      buses.push(bus);
      await Promise.race([
        bus.ready,
        new Promise((_, reject) => setTimeout(() => reject(new Error(`The NATS bus did not connect to ${NATS_TEST_URL} within 10 s`)), 10_000)),
      ]);
      return bus;
    },
    async drop() {
      await Promise.all(buses.map((b) => b.close()));
      const nc = await connect({ servers: NATS_TEST_URL });
      try {
        await (await jetstreamManager(nc)).streams.delete(stream).catch(() => false);
      } finally {
        await nc.close();
      }
    },
  };
}

async function assertNatsAnswers(): Promise<void> {
  try {
    const nc = await connect({ servers: NATS_TEST_URL, timeout: 3_000 });
    await nc.close();
  } catch (error) {
    throw new Error(
      `NATS does not answer at ${NATS_TEST_URL} (${(error as Error).message}). The event bus tests need a NATS server with JetStream: ` +
        "`nats-server -a 127.0.0.1 -p 4222 -js` (.ci/run starts it), or set NATS_TEST_URL.",
    );
  }
}
