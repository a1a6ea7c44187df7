/** What the NATS bus hands its subscriptions and its tap (../nats.ts). */
import type { JetStreamClient, JetStreamManager } from "@nats-io/jetstream";
import type { BusMessage } from "../types.ts";

export interface Clients {
  js: JetStreamClient;
  jsm: JetStreamManager;
}

export interface NatsContext {
  stream: string;
  subjectPrefix: string;
  /** Resolves with the clients once connected (the stream in place); null when the bus closed first. */
  connected(): Promise<Clients | null>;
  /** A sequence was seen (delivered or acknowledged): health's last sequence. */
  saw(seq: number): void;
  onHandlerError(error: unknown, message: BusMessage): void;
  onFailure(error: unknown, what: string): void;
}

/** Messages asked of the server at a time; the client asks for more at half. */
export const BATCH = 1_000;
