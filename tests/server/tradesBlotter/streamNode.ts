/**
 * What the blotter stream's unit tests share: a node (server/modules/tradesBlotter/node.ts) on the
 * real in-process bus, with the platform, the accounts mirror and the trade history store faked at
 * their edges; a socket that reads only when told to (a real `Writable`, so `writableLength` and
 * `drain` behave as a response's do); and trade events to publish.
 */
import { Writable } from "node:stream";
import type { BlotterPlatform, BlotterRow } from "../../../core/schemas/blotterLive.ts";
import type { Deal } from "../../../core/trading/deal.ts";
import type { TradeEvent } from "../../../core/trading/events.ts";
import type { Position } from "../../../core/trading/position.ts";
import type { EventBus } from "../../../server/events/bus.ts";
import { createInProcessBus } from "../../../server/events/inProcess.ts";
import type { EventStream } from "../../../server/modules/tradesBlotter/connection.ts";
import { StreamNode } from "../../../server/modules/tradesBlotter/node.ts";
import { BLOTTER_STREAM_DEFAULTS, type BlotterStreamOptions } from "../../../server/modules/tradesBlotter/options.ts";
import type { BlotterSnapshotSource } from "../../../server/modules/tradesBlotter/snapshotSource.ts";

export const ORG = "org-1";
export const OTHER_ORG = "org-2";
export const P1: BlotterPlatform = { id: "p1", name: "Live 1", type: "MT5", timeZone: "UTC" };
export const P2: BlotterPlatform = { id: "p2", name: "Live 2", type: "MT5", timeZone: "UTC" };

let sequence = 0;
let ids = 0;

export function deal(login: string, extra: Partial<Deal> = {}): Deal {
  const id = String(++ids);
  return {
    id,
    login,
    time: Date.now(),
    action: "buy",
    entry: "in",
    positionId: null,
    symbol: "EURUSD",
    volume: 10_000,
    price: 1.1,
    profit: 0,
    commission: 0,
    swap: 0,
    comment: "",
    reason: "client",
    native: { platform: "MT5", deal: ids, order: 1, position: 1 },
    ...extra,
  };
}

export function position(login: string, extra: Partial<Position> = {}): Position {
  const id = String(++ids);
  return {
    id,
    login,
    symbol: "XAUUSD",
    side: "sell",
    volume: 5_000,
    openTime: Date.now(),
    openPrice: 2300,
    currentPrice: 2301,
    sl: null,
    tp: null,
    profit: 0,
    swap: 0,
    comment: "",
    reason: "client",
    previousId: null,
    native: { platform: "MT5", position: ids },
    ...extra,
  };
}

export const dealAdded = (d: Deal): TradeEvent => ({ type: "dealAdded", sequence: ++sequence, time: d.time, login: d.login, deal: d });
export const positionOpened = (p: Position): TradeEvent => ({ type: "positionOpened", sequence: ++sequence, time: p.openTime, login: p.login, position: p });
export const positionModified = (p: Position): TradeEvent => ({
  type: "positionModified",
  sequence: ++sequence,
  time: Date.now(),
  login: p.login,
  position: p,
  change: "stops",
});

/** A trade history store that knows what the test puts in it; a read waits while `hold` is set. */
export class FakeSource implements BlotterSnapshotSource {
  positions: Position[] = [];
  deals: Deal[] = [];
  reads = 0;
  gaps: { platformId: string; resumedAt: number }[] = [];
  private held: Promise<void> | null = null;
  private release: (() => void) | null = null;

  hold() {
    this.held = new Promise((resolve) => (this.release = resolve));
  }
  let() {
    this.release?.();
    this.held = null;
  }
  async openPositions(): Promise<Position[]> {
    this.reads++;
    if (this.held) await this.held;
    return [...this.positions];
  }
  async recentDeals(): Promise<Deal[]> {
    if (this.held) await this.held;
    return [...this.deals];
  }
  gap(platformId: string, resumedAt: number) {
    this.gaps.push({ platformId, resumedAt });
  }
}

export interface TestNode {
  bus: EventBus;
  node: StreamNode;
  source: FakeSource;
  /** What the organizations' blotter platforms are now (what a recheck reads). */
  platforms: Map<string, BlotterPlatform[]>;
  trade(event: TradeEvent, platformId?: string, organizationId?: string): Promise<void>;
  close(): void;
}

export function testNode(
  options: BlotterStreamOptions = {},
  bus: EventBus = createInProcessBus({
    onHandlerError: (error) => {
      throw error;
    },
  }),
): TestNode {
  const source = new FakeSource();
  const platforms = new Map<string, BlotterPlatform[]>([
    [ORG, [P1]],
    [OTHER_ORG, [P2]],
  ]);
  const connector = { listSymbols: async () => [{ name: "XAUUSD", contractSize: 100 }] as never, openPositions: async () => [] };
  const node = new StreamNode({
    bus,
    log: { warn() {} },
    settings: { ...BLOTTER_STREAM_DEFAULTS, ...options },
    platforms: { connectorFor: async () => connector },
    platformsOf: async (organizationId) => platforms.get(organizationId) ?? [],
    groupsOf: async () => new Map([["1001", "real\\gold"]]),
    snapshots: source,
  });
  return {
    bus,
    node,
    source,
    platforms,
    trade: (event, platformId = P1.id, organizationId = ORG) => bus.publish({ type: "trade", organizationId, platformId, event }),
    close: () => node.closeAll(),
  };
}

/** A client's socket: takes what is written while `reading`; otherwise holds it (`writableLength` grows). */
export class FakeSocket extends Writable {
  private received: Buffer[] = [];
  private waiting: (() => void) | null = null;
  reading = true;

  constructor(highWaterMark = 16 * 1024) {
    super({ highWaterMark });
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, done: (error?: Error | null) => void) {
    const take = () => {
      this.received.push(chunk);
      done();
    };
    if (this.reading) take();
    else this.waiting = take;
  }

  pause() {
    this.reading = false;
  }

  /** Reads again, and takes what waits. */
  read() {
    this.reading = true;
    const take = this.waiting;
    this.waiting = null;
    take?.();
  }

  /** The SSE events received so far. */
  events(): SseEvent[] {
    return parseEvents(this.received);
  }
}

/** SSE text as events (each `data:` parsed as JSON). */
export function parseEvents(buffers: Buffer[]): SseEvent[] {
  return Buffer.concat(buffers)
    .toString()
    .split("\n\n")
    .filter((block) => block.trim() !== "")
    .map((block) => {
      const event: SseEvent = { event: "message", data: undefined };
      for (const line of block.split("\n")) {
        const [field, ...rest] = line.split(": ");
        const value = rest.join(": ");
        if (field === "id") event.id = Number(value);
        else if (field === "event") event.event = value;
        else if (field === "data") event.data = JSON.parse(value);
      }
      return event;
    });
}

export interface SseEvent {
  id?: number;
  event: string;
  data: unknown;
}

export const rowsOf = (event: SseEvent | undefined): BlotterRow[] => (event?.data as { rows: BlotterRow[] } | undefined)?.rows ?? [];

/** The SSE stream over a socket, as server/streams/sse.ts's ends it: clean-ups once, then the socket. */
export function eventStream(socket: FakeSocket): EventStream & { readonly closed: boolean } {
  const cleanups: (() => void)[] = [];
  let closed = false;
  return {
    res: socket,
    get closed() {
      return closed;
    },
    onClose: (cleanup) => void (closed ? cleanup() : cleanups.push(cleanup)),
    close() {
      if (closed) return;
      closed = true;
      for (const cleanup of cleanups) cleanup();
      if (!socket.writableEnded) socket.end();
    },
  };
}
