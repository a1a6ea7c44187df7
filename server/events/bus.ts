/**
 * The event bus: one typed way for the parts of Toolbox to publish and follow domain events
 * (./types.ts). In-process by default (./inProcess.ts); NATS JetStream across nodes when
 * NATS_URL is set. One contract test suite runs against both.
 */
import type {
  BusFilter,
  BusHandler,
  BusHealth,
  BusMessage,
  BusPublishOptions,
  BusSubscribeOptions,
  BusSubscription,
  DomainEvent,
  DomainEventType,
} from "./types.ts";

import type { NodeLink } from "./link.ts";

export interface EventBus {
  readonly kind: BusHealth["kind"];
  /**
   * Publishes in order; resolves once the bus holds them (NATS: once JetStream acknowledged them).
   * `ids`, one per event (or undefined for none), make a repeated publish harmless: NATS drops an
   * event whose id it stored within the stream's duplicate window (in-process, a publish never
   * half-succeeds, so ids are not needed there and are ignored).
   */
  publish(events: DomainEvent | readonly DomainEvent[], options?: BusPublishOptions): Promise<void>;
  /** Handlers run in sequence order; a handler that throws is logged and does not stop the subscription. */
  subscribe<T extends DomainEventType>(
    filter: BusFilter<T>,
    handler: BusHandler<Extract<DomainEvent, { type: T }>>,
    options?: BusSubscribeOptions,
  ): BusSubscription;
  health(): BusHealth;
  close(): Promise<void>;
  /** Direct messages between nodes (./link.ts): how a node reaches a simulated platform another node runs. */
  readonly link?: NodeLink;
}

export function matches(filter: BusFilter, event: DomainEvent): boolean {
  if (!filter.types.includes(event.type)) return false;
  if (filter.organizationId !== undefined && filter.organizationId !== event.organizationId) return false;
  if (filter.platformIds !== undefined && !filter.platformIds.includes(event.platformId)) return false;
  return true;
}

export type { BusFilter, BusHandler, BusHealth, BusMessage, BusPublishOptions, BusSubscribeOptions, BusSubscription, DomainEvent, DomainEventType };
