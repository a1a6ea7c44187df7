/** The connection manager: one connection per enabled platform, backoff with jitter, and no platform waiting on another. */
import fc from "./propertyTesting.ts";
import { afterEach, describe, expect, it } from "vitest";
import { backoffDelay, DEFAULT_BACKOFF } from "../../../server/connectors/backoff.ts";
import { ManualClock } from "../../../server/connectors/clock.ts";
import type { SimulatedConnectorConfig } from "../../../server/connectors/config.ts";
import { createConnector } from "../../../server/connectors/factory.ts";
import { ConnectionManager, type ManagedPlatform, type PlatformStatus } from "../../../server/connectors/manager.ts";
import { SimulatedServerRegistry } from "../../../server/connectors/simulated/registry.ts";
import { collect } from "./contract/helpers.ts";

const CONNECT_TIMEOUT = 5_000;

function setup(random: () => number = () => 0.5) {
  const clock = new ManualClock();
  const registry = new SimulatedServerRegistry(clock);
  const manager = new ConnectionManager({
    clock,
    random,
    connectTimeoutMs: CONNECT_TIMEOUT,
    backoff: { initialMs: 1_000, maxMs: 8_000, multiplier: 2, jitter: 0.5 },
    createConnector: (config) => createConnector(config, { clock, simulatedServers: registry }),
  });
  const statuses: PlatformStatus[] = [];
  manager.onStatus((s) => statuses.push(s));
  const platform = (id: string, extra: Partial<SimulatedConnectorConfig> = {}, enabled = true): ManagedPlatform => ({
    id,
    enabled,
    config: { kind: "simulated", platform: "MT5", serverKey: id, server: { accounts: 20, tradeRate: 0 }, ...extra },
  });
  const server = (id: string) => registry.obtain(id, { platform: "MT5", accounts: 20, tradeRate: 0 });
  return { clock, registry, manager, statuses, platform, server };
}

let cleanup: (() => Promise<void>) | undefined;
afterEach(async () => {
  await cleanup?.();
  cleanup = undefined;
});

describe("backoff", () => {
  it("stays within [base·(1−jitter), base] and the base doubles up to the cap", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 30 }), fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), (retry, r) => {
        const base = Math.min(DEFAULT_BACKOFF.maxMs, DEFAULT_BACKOFF.initialMs * 2 ** (retry - 1));
        const delay = backoffDelay(retry, DEFAULT_BACKOFF, () => r);
        expect(delay).toBeGreaterThanOrEqual(Math.floor(base * (1 - DEFAULT_BACKOFF.jitter)));
        expect(delay).toBeLessThanOrEqual(base);
      }),
    );
  });
});

describe("connection manager", () => {
  it("connects each enabled platform, leaves disabled ones alone, and publishes states", async () => {
    const t = setup();
    cleanup = async () => {
      await t.manager.stop();
      t.registry.stopAll();
    };
    t.manager.sync([t.platform("a"), t.platform("b", {}, false)]);
    await t.clock.advance(0);
    expect(t.manager.status("a")).toMatchObject({ state: "connected", failures: 0, error: null });
    expect(t.manager.get("b")).toBeUndefined();
    const published = t.statuses.filter((s) => s.platformId === "a").map((s) => s.state);
    expect(published).toContain("connecting");
    expect(published.at(-1)).toBe("connected");

    t.manager.sync([t.platform("b")]);
    await t.clock.advance(0);
    expect(t.manager.get("a")).toBeUndefined();
    expect(t.manager.status("b")?.state).toBe("connected");
  });

  it("never lets a hung platform hold up another", async () => {
    const t = setup();
    cleanup = async () => {
      await t.manager.stop();
      t.registry.stopAll();
    };
    t.server("hung").faults.slowAnswers(10_000_000);
    t.manager.sync([t.platform("hung", { connectTimeoutMs: 300_000 }), t.platform("fine")]);
    await t.clock.advance(0);
    expect(t.manager.status("fine")?.state).toBe("connected");
    expect(t.manager.status("hung")?.state).toBe("connecting");
    await expect(t.manager.get("fine")?.listGroups()).resolves.not.toHaveLength(0);

    await t.clock.advance(CONNECT_TIMEOUT);
    const hung = t.manager.status("hung");
    expect(hung).toMatchObject({ failures: 1, error: { code: "timeout" } });
    expect(hung?.nextRetryAt).toBeGreaterThan(t.clock.now());
    expect(t.manager.status("fine")?.state).toBe("connected");
  });

  it("retries with growing, jittered delays, and starts over after a success", async () => {
    const randoms = [0, 1, 0.5, 0, 0];
    const t = setup(() => randoms.shift() ?? 0);
    cleanup = async () => {
      await t.manager.stop();
      t.registry.stopAll();
    };
    t.server("down").faults.disconnect({ refuseReconnect: true });
    t.manager.sync([t.platform("down")]);
    const delays: number[] = [];
    for (let attempt = 0; attempt < 5; attempt++) {
      await t.clock.advance(0);
      const status = t.manager.status("down");
      expect(status?.state).toBe("failed");
      expect(status?.error?.code).toBe("unreachable");
      const wait = (status?.nextRetryAt ?? 0) - t.clock.now();
      delays.push(wait);
      await t.clock.advance(wait);
    }
    // base 1000, 2000, 4000, 8000, 8000 (cap); jitter takes away up to half: random 0 → all, 1 → half.
    expect(delays).toEqual([1000, 1000, 3000, 8000, 8000]);

    t.server("down").faults.restore();
    await t.clock.advance(8_000);
    expect(t.manager.status("down")).toMatchObject({ state: "connected", failures: 0, nextRetryAt: null });
  });

  it("reconnects after a dropped link, and the live stream carries on", async () => {
    const t = setup();
    cleanup = async () => {
      await t.manager.stop();
      t.registry.stopAll();
    };
    t.manager.sync([t.platform("a")]);
    await t.clock.advance(0);
    const connector = t.manager.get("a");
    if (!connector) throw new Error("no connector");
    const stream = collect(connector.subscribe());
    const server = t.server("a");
    server.traders.step(30);
    await t.clock.advance(0);
    server.faults.disconnect();
    await t.clock.advance(0);
    expect(t.manager.status("a")?.state).toBe("reconnecting");
    server.traders.step(30);
    await t.clock.advance(1_000);
    expect(t.manager.status("a")?.state).toBe("connected");
    server.traders.step(30);
    await t.clock.advance(0);
    await stream.stop();
    stream.events.forEach((e, i) => expect(e.sequence).toBe(i + 1));
    expect(stream.events.length).toBeGreaterThan(60);
  });

  it("does not hammer a server that refuses the credentials, and connects once they are fixed", async () => {
    const t = setup();
    cleanup = async () => {
      await t.manager.stop();
      t.registry.stopAll();
    };
    t.manager.sync([t.platform("a", { credentials: { login: "1000", password: "wrong" } })]);
    await t.clock.advance(60_000);
    expect(t.manager.status("a")).toMatchObject({ state: "failed", failures: 1, nextRetryAt: null, error: { code: "credentialsRefused" } });
    expect(JSON.stringify(t.statuses)).not.toContain("wrong");
    t.manager.sync([t.platform("a")]);
    await t.clock.advance(0);
    expect(t.manager.status("a")?.state).toBe("connected");
  });
});
