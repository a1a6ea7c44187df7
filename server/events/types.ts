/**
 * The domain events Toolbox nodes tell each other about, on the event bus (./bus.ts). Every event
 * belongs to one organization and one platform; subscribers filter on both, and the NATS
 * implementation puts both in the subject, so one organization's events never reach a
 * subscription for another's.
 */
import type { ConnectionState, TradeEvent, TradePlatformType } from "../../core/trading/index.ts";

/**
 * A trade platform as the feeds and the platform runtime name it. Declared here, with the events,
 * rather than in the platform runtime (server/modules/tradePlatforms/runtime/): the events
 * sit below the modules and import nothing from them (docs/architecture.md "Layers").
 */
export interface PlatformRef {
  id: string;
  organizationId: string;
  type: TradePlatformType;
}

/** What the platform runtime tells others about a platform's connection (`platformState` below). */
export interface PlatformState {
  state: ConnectionState;
  /** Why the platform is not connected, in a dealer's words; null when connected or disabled. */
  lastError: string | null;
  /** The server's clock, RFC 3339 with the server's offset; while connected. */
  serverTime?: string;
}

interface EventBase {
  organizationId: string;
  platformId: string;
}

/** A live trade event from a platform's connector (positions, deals, account changes), as the connector numbered it. */
export interface TradeBusEvent extends EventBase {
  type: "trade";
  event: TradeEvent;
}

/**
 * Some of the platform's trade events are not on the bus (the feed started on a new connection, or
 * the connector could no longer replay what came next): followers that keep state from trade
 * events read it again from the platform.
 */
export interface TradeGapBusEvent extends EventBase {
  type: "tradeGap";
  /**
   * When the feed's new subscription started (ms since the epoch): every trade event from then on
   * is on the bus, so only what the platform did before it may be missing. A read of the platform
   * begun at or after this moment already covers the gap.
   */
  resumedAt: number;
}

/** A platform's connection changed (or its clock was read again while connected). */
export interface PlatformStateBusEvent extends EventBase, PlatformState {
  type: "platformState";
}

/** A platform was deleted or disabled: its followers stop. */
export interface PlatformRemovedBusEvent extends EventBase {
  type: "platformRemoved";
}

/**
 * A platform was created, changed or deleted on one node (after the change committed): the other
 * nodes' runtimes read its row again now, not at their next restart.
 */
export interface PlatformChangedBusEvent extends EventBase {
  type: "platformChanged";
  /** The node that made the change (it has applied it already). */
  nodeId: string;
}

/**
 * The node that published a platform's trade feed gave its lease up (a clean shutdown, or it can
 * no longer reach the platform): the other nodes try to take the feed over now, not after the
 * lease's time to live (server/events/feedLeases.ts).
 */
export interface TradeFeedReleasedBusEvent extends EventBase {
  type: "tradeFeedReleased";
  /** The node that gave it up: it hears its own release too, and stays quiet about the platform. */
  nodeId: string;
}

/**
 * The `platformId` of an event about the organization as a whole (a member joined, security
 * settings changed, an inbox changed): no platform's subscription receives it.
 */
export const ORGANIZATION_WIDE = "organization";

/** A balance operation was applied by the platform and recorded (the notifications compare it with the large-operation threshold). */
export interface BalanceOperationDoneBusEvent extends EventBase {
  type: "balanceOperationDone";
  operationId: string;
  login: string;
  operationType: string;
  /** Two-decimal string (decision 0019). */
  amount: string;
  actorSub: string;
  actorName: string | null;
}

/** The trades copier could not copy (or stopped copying) for a link. Published by the copier engine. */
export interface CopierFailureBusEvent extends EventBase {
  type: "copierFailure";
  linkId: string;
  message: string;
}

/** A follower's positions no longer match its master's. Published by the copier engine. */
export interface CopierDivergenceBusEvent extends EventBase {
  type: "copierDivergence";
  linkId: string;
  message: string;
}

/** A platform's dealing schedule switched its execution profile (docs/dealing.md). Published once per switch by the node that recorded it. */
export interface DealingProfileSwitchedBusEvent extends EventBase {
  type: "dealingProfileSwitched";
  /** Epoch ms of the switch. */
  at: number;
  from: string | null;
  profile: string;
  reason: string;
}

/**
 * Flexible Leverage changed an account's leverage (docs/flexible-leverage.md): the simulated
 * server's plugin (published by the node running the server) or Toolbox's runner for a server
 * without the plugin. Published once per recorded change (`leverage_changes`).
 */
export interface LeverageChangedBusEvent extends EventBase {
  type: "leverageChanged";
  login: string;
  from: number;
  to: number;
  /** Who changed it, in words: the plugin's name, or "Toolbox (Flexible Leverage rules)". */
  plugin: string;
  /** Where the engine ran. */
  source?: "plugin" | "toolbox";
  /** The rule that decided, and the engine's reason ("rule 'Gold', tier ≥ 50,000 USD equity → 1:50"). */
  rule?: string | null;
  reason?: string;
  /** The recorded change's id (leverage_changes). */
  changeId?: string;
}

/** A member joined or left the organization (platformId: ORGANIZATION_WIDE). Published by the members area. */
export interface MemberBusEvent extends EventBase {
  type: "memberJoined" | "memberLeft";
  sub: string;
  name: string | null;
}

/**
 * A member's two-factor sign-in was reset by an administrator of `byOrganizationName` (perhaps
 * another organization: two-factor is the person's, so each of their organizations hears of it;
 * platformId: ORGANIZATION_WIDE). Published by the members area.
 */
export interface MemberTwoFactorResetBusEvent extends EventBase {
  type: "memberTwoFactorReset";
  sub: string;
  name: string | null;
  actorName: string | null;
  byOrganizationName: string;
  /** The reset's own id (its audit rows share it): one notice per organization however often it is seen. */
  resetId: string;
}

/** The organization's security settings changed (platformId: ORGANIZATION_WIDE). Published by the security settings. */
export interface SecuritySettingsChangedBusEvent extends EventBase {
  type: "securitySettingsChanged";
  actorName: string | null;
  summary: string;
}

/**
 * Members' inboxes changed (new notifications, some marked read): open inbox streams recount
 * (platformId: ORGANIZATION_WIDE). `userSubs` names whose; absent: everyone's.
 */
export interface InboxChangedBusEvent extends EventBase {
  type: "inboxChanged";
  userSubs?: string[];
}

/**
 * A Quotes Monitor alert was raised or cleared on a (platform, symbol) (docs/quotes-monitor.md).
 * Each node that follows the platform's quotes judges it from the same ticks; `episode` (the
 * platform's time of the tick the alert starts from) is the same on every node, so the bus's
 * message id and the inbox's dedupe key make it one alert however many nodes raise it.
 */
export interface QuoteAlertBusEvent extends EventBase {
  type: "quoteAlert";
  state: "raised" | "cleared";
  ruleId: string;
  ruleName: string;
  kind: "staleFeed" | "spread" | "crossServer";
  symbol: string;
  severity: "info" | "warning" | "error";
  /** What was seen, in a dealer's words. */
  message: string;
  episode: string;
  /** A cross-server alert's second platform (`platformId` is the first of the pair, ordered by id). */
  otherPlatformId?: string;
}

export type DomainEvent =
  | QuoteAlertBusEvent
  | TradeBusEvent
  | TradeGapBusEvent
  | PlatformStateBusEvent
  | PlatformRemovedBusEvent
  | PlatformChangedBusEvent
  | TradeFeedReleasedBusEvent
  | BalanceOperationDoneBusEvent
  | CopierFailureBusEvent
  | CopierDivergenceBusEvent
  | LeverageChangedBusEvent
  | DealingProfileSwitchedBusEvent
  | MemberBusEvent
  | MemberTwoFactorResetBusEvent
  | SecuritySettingsChangedBusEvent
  | InboxChangedBusEvent;
export type DomainEventType = DomainEvent["type"];

/** An event as the bus delivers it. */
export interface BusMessage<E extends DomainEvent = DomainEvent> {
  /**
   * The bus's own sequence: grows with every event published (across organizations and
   * platforms), so a subscriber that stored the last one it handled resumes after it with
   * nothing lost or repeated. Gaps are normal for a filtered subscription.
   */
  seq: number;
  /** When the bus accepted it (ms since the epoch). */
  publishedAt: number;
  event: E;
}

export interface BusPublishOptions {
  /**
   * One id per event (undefined: none), unique for what the event stands for: NATS JetStream sets
   * it as the message id (`Nats-Msg-Id`) and stores an id it already holds within the stream's
   * duplicate window only once, so a publish repeated after a failed ack is not seen twice.
   */
  ids?: readonly (string | undefined)[];
}

/** What a subscription receives; every field narrows it, none widens it. */
export interface BusFilter<T extends DomainEventType = DomainEventType> {
  types: readonly T[];
  organizationId?: string;
  /** Only these platforms (within the organization). */
  platformIds?: readonly string[];
}

export interface BusSubscribeOptions {
  /**
   * Deliver the retained events with a sequence greater than this first, then live ones. Without
   * it, only events published from now on. When the events after it are no longer retained, the
   * subscription's `onGap` is called once before anything else is delivered; so it is when the
   * sequence is ahead of the bus (a restarted in-process bus), and then everything retained follows.
   */
  after?: number;
  /**
   * A name that makes the subscription durable where the implementation can (NATS JetStream): it
   * resumes where it stopped, even after a restart. In-process, a name has no effect beyond logs.
   */
  durable?: string;
  /** Called when events between `after` and the first delivered one were dropped by retention. */
  onGap?: (gap: { after: number; firstAvailable: number }) => void;
}

/**
 * A subscription's handler. On a durable subscription (NATS) a handler that returns a promise (a
 * function returning one is a handler too) is
 * waited for before the event is acknowledged, so an event whose work was not recorded (a crash
 * meanwhile) is delivered again; elsewhere the promise is not waited for.
 */
export type BusHandler<E extends DomainEvent = DomainEvent> = (message: BusMessage<E>) => void;

export interface BusSubscription {
  /** The sequence of the last message handed to the handler (0 before any). */
  readonly lastSeq: number;
  close(): void;
}

export interface BusHealth {
  kind: "in-process" | "nats";
  state: "up" | "connecting" | "down";
  /** The last sequence the bus handed out (NATS: the stream's last sequence, as last seen). */
  lastSeq: number;
  /** Open subscriptions on this node. */
  subscriptions?: number;
  /** Why it is not up, in plain words. */
  error?: string;
}
