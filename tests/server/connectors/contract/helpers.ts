/** Small helpers the contract sections share. */
import { expect } from "vitest";
import type { Deal, Position, TradeEvent } from "../../../../core/trading/index.ts";
import type { TradeEventStream, TradePlatformConnector } from "../../../../server/connectors/connector.ts";
import { ConnectorError, type ConnectorErrorCode } from "../../../../server/connectors/errors.ts";
import type { ConnectorHarness } from "./harness.ts";

export interface Collected {
  events: TradeEvent[];
  error: () => unknown;
  stop(): Promise<void>;
}

/** Reads a stream in the background into an array. */
export function collect(stream: TradeEventStream): Collected {
  const events: TradeEvent[] = [];
  let failure: unknown;
  const done = (async () => {
    try {
      for await (const event of stream) events.push(event);
    } catch (error) {
      failure = error;
    }
  })();
  return {
    events,
    error: () => failure,
    async stop() {
      stream.close();
      await done;
    },
  };
}

export async function expectConnectorError(promise: Promise<unknown>, code: ConnectorErrorCode): Promise<ConnectorError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error, `expected a ConnectorError ${code}`).toBeInstanceOf(ConnectorError);
  const connectorError = error as ConnectorError;
  expect(connectorError.code, connectorError.message).toBe(code);
  // A dealer reads this message: a sentence, no stack, no protocol dump.
  expect(connectorError.message).toMatch(/^[A-Z0-9].{10,}/);
  expect(connectorError.message).not.toMatch(/\bat .*\.ts:\d+|undefined|\[object/);
  return connectorError;
}

let counter = 0;
export function uniqueId(prefix: string): string {
  return `${prefix}-${Date.now().toString(36)}-${++counter}`;
}

/** A fresh account with money and trading allowed, in a USD group. */
export async function fundedAccount(connector: TradePlatformConnector, deposit = 1_000_000): Promise<string> {
  const groups = await connector.listGroups();
  const group = groups.find((g) => g.currency === "USD") ?? groups[0];
  if (!group) throw new Error("The server has no groups");
  const account = await connector.createAccount({ group: group.name, name: "Contract Trader", password: "Contract1", leverage: 100 });
  await connector.balanceOperation({ operationId: uniqueId("fund"), login: account.login, type: "deposit", amount: deposit, comment: "contract" });
  return account.login;
}

/** Lets pushed events reach the connector's streams. */
export async function settle(harness: ConnectorHarness): Promise<void> {
  await harness.advance(0);
  await harness.advance(0);
}

/** Open positions as a stream consumer would rebuild them: snapshot, then events applied in order. */
export function replay(snapshot: Position[], events: TradeEvent[]): Map<string, Position> {
  const open = new Map(snapshot.map((p) => [p.id, p]));
  for (const e of events) {
    if (e.type === "positionOpened" || e.type === "positionModified") open.set(e.position.id, e.position);
    if (e.type === "positionClosed") open.delete(e.position.id);
  }
  return open;
}

export function expectConsecutive(events: TradeEvent[], after: number): void {
  events.forEach((e, i) => expect(e.sequence, `event ${i} (${e.type})`).toBe(after + i + 1));
}

/** The stream's deals equal the platform's own history over the same window, one for one. */
export async function expectDealsMatchHistory(connector: TradePlatformConnector, events: TradeEvent[], from: number, to: number): Promise<void> {
  const streamed = events.flatMap((e) => (e.type === "dealAdded" ? [e.deal] : []));
  const ids = streamed.map((d) => d.id);
  expect(new Set(ids).size, "a deal was delivered twice").toBe(ids.length);
  const logins = [...new Set(streamed.map((d) => d.login))];
  const history: Deal[] = [];
  for (const login of logins) history.push(...(await connector.dealHistory({ login, from, to })));
  const essentials = (d: Deal) => [d.id, d.login, d.action, d.entry, d.positionId, d.symbol, d.volume, d.price, d.profit, d.time];
  const byId = (a: Deal, b: Deal) => a.id.localeCompare(b.id);
  expect(streamed.sort(byId).map(essentials)).toEqual(history.sort(byId).map(essentials));
}
