/**
 * Measures how many trading actions a simulated server performs per second, and how many
 * normalized trade events per second reach a subscriber through its connector (native encoding,
 * dedupe, sequencing included). For `npm run bench`; not a timed test.
 */
import type { TradePlatformType } from "../core/trading/index.ts";
import { ManualClock } from "../server/connectors/clock.ts";
import { createSimulatedConnector } from "../server/connectors/simulated/connector.ts";
import { SimulatedServer } from "../server/connectors/simulated/server.ts";

export interface EventRateResult {
  platform: TradePlatformType;
  accounts: number;
  actions: number;
  transactions: number;
  events: number;
  seconds: number;
  actionsPerSecond: number;
  eventsPerSecond: number;
}

export async function measureSimulatedEventRate(
  platform: TradePlatformType,
  options: { accounts?: number; actions?: number; batch?: number } = {},
): Promise<EventRateResult> {
  const accounts = options.accounts ?? 10_000;
  const actions = options.actions ?? 20_000;
  const batch = options.batch ?? 500;
  const clock = new ManualClock();
  const server = new SimulatedServer({ platform, clock, accounts, tradeRate: 0 });
  const connector = createSimulatedConnector(server, { clock, retainedEvents: actions * 4 });
  await connector.connect();
  const stream = connector.subscribe();
  const first = stream.lastSequence;
  const iterator = stream[Symbol.asyncIterator]();
  let events = 0;
  const reading = (async () => {
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) events++;
  })();
  const startSequence = server.engine.ctx.log.lastSequence;
  const started = performance.now();
  for (let done = 0; done < actions; done += batch) {
    server.traders.step(Math.min(batch, actions - done));
    server.engine.tickPrices();
    await clock.advance(0);
  }
  const seconds = (performance.now() - started) / 1000;
  stream.close();
  await reading;
  await connector.disconnect();
  server.stop();
  return {
    platform,
    accounts,
    actions,
    transactions: server.engine.ctx.log.lastSequence - startSequence,
    events: stream.lastSequence - first,
    seconds,
    actionsPerSecond: Math.round(actions / seconds),
    eventsPerSecond: Math.round(events / seconds),
  };
}
