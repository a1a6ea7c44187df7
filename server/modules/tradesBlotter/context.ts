/**
 * What a channel (./channel.ts) and a stream's connection (./connection.ts) share on the node: the
 * bus, the settings, the node's counters and budget, its platform facts and its snapshot reader.
 * The node (./node.ts) is one; a unit test builds its own around an in-process bus.
 */
import type { BlotterPlatform } from "../../../core/schemas/blotterLive.ts";
import type { EventBus } from "../../events/bus.ts";
import type { NodeBudget } from "./nodeBudget.ts";
import type { BlotterStreamSettings } from "./options.ts";
import type { PlatformFacts } from "./platformFacts.ts";
import type { SnapshotReader } from "./snapshots.ts";
import type { Traffic } from "./traffic.ts";

export interface StreamLog {
  warn(details: object, message: string): void;
}

export interface StreamContext {
  readonly bus: EventBus;
  readonly log: StreamLog;
  readonly settings: BlotterStreamSettings;
  readonly traffic: Traffic;
  readonly budget: NodeBudget;
  readonly facts: PlatformFacts;
  readonly snapshots: SnapshotReader;
  /** The organization's platforms with the Trades Blotter app assigned, read now. */
  platformsOf(organizationId: string): Promise<BlotterPlatform[]>;
}
