/**
 * The one JetStream stream that holds Toolbox's events: every subject under the prefix, kept by
 * limits (age, bytes, messages; the oldest go first), created at connect or brought in line
 * with the configured limits if it exists. docs/events.md, "Streams and limits".
 */
import { DiscardPolicy, RetentionPolicy, StorageType, type JetStreamManager, type StreamConfig } from "@nats-io/jetstream";

export interface StreamLimits {
  /** How long events are kept; 24 hours by default. */
  maxAgeMs: number;
  /** At most this many bytes; 1 GiB by default. */
  maxBytes: number;
  /** At most this many events; 10,000,000 by default. */
  maxMessages: number;
  /**
   * How long the stream remembers message ids (`Nats-Msg-Id`) to drop a repeated publish; 2 minutes
   * by default (JetStream's own default, set explicitly). At most `maxAgeMs`.
   */
  duplicateWindowMs: number;
  /** `file` (kept across NATS restarts) by default; tests use `memory`. */
  storage: "file" | "memory";
}

export const STREAM_DEFAULTS: StreamLimits = {
  maxAgeMs: 24 * 3_600_000,
  maxBytes: 1024 ** 3,
  maxMessages: 10_000_000,
  duplicateWindowMs: 120_000,
  storage: "file",
};

export async function ensureStream(jsm: JetStreamManager, name: string, subjectPrefix: string, limits: StreamLimits): Promise<void> {
  const config: Partial<StreamConfig> = {
    subjects: [`${subjectPrefix}.>`],
    retention: RetentionPolicy.Limits,
    discard: DiscardPolicy.Old,
    max_age: limits.maxAgeMs * 1_000_000, // nanoseconds
    max_bytes: limits.maxBytes,
    max_msgs: limits.maxMessages,
    // Nanoseconds; the server refuses a window longer than max_age.
    duplicate_window: Math.min(limits.duplicateWindowMs, limits.maxAgeMs) * 1_000_000,
    // Catching-up subscriptions ask for the next message of their subject directly (./localSubscription.ts).
    allow_direct: true,
  };
  try {
    const info = await jsm.streams.info(name);
    const c = info.config;
    const same =
      c.max_age === config.max_age &&
      c.max_bytes === config.max_bytes &&
      c.max_msgs === config.max_msgs &&
      c.duplicate_window === config.duplicate_window &&
      c.allow_direct === true;
    if (!same || c.subjects.join() !== config.subjects!.join()) await jsm.streams.update(name, config);
  } catch (error) {
    if (!isNotFound(error)) throw error;
    await jsm.streams.add({ name, ...config, storage: limits.storage === "memory" ? StorageType.Memory : StorageType.File });
  }
}

function isNotFound(error: unknown): boolean {
  return error instanceof Error && (error.name === "StreamNotFoundError" || /stream not found/i.test(error.message));
}
