/**
 * A dealing profile written to a real server (docs/dealing.md "Real servers") through the real
 * connectors and the local protocol servers: the MT5 Web API, the MT4 gateway and the Match-Trader
 * Broker API. A switch writes exactly the symbol fields the profile implies (checked against the
 * server's own records and an independent computation of the markup), once; switching back to the
 * profile without markups or limits restores every symbol exactly; a symbol changed by another
 * manager between the read and the write refuses the whole pass, undoing what it wrote; a setting
 * the platform type cannot take is reported, and a symbol changed outside Toolbox while the profile
 * is in force is left as the server has it.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { DealingOriginals, ExecutionProfile } from "../../../core/dealing/index.ts";
import { configVersion, type TradeSymbol } from "../../../core/trading/index.ts";
import { planWrite, writePlan, writeProfile, type ProfileWriteDeps } from "../../../server/modules/dealing/serverWrite.ts";
import type { ConnectorHarness } from "../connectors/contract/harness.ts";
import { matchTraderApiHarness } from "../connectors/matchTraderApiHarness.ts";
import { mt4GatewayHarness } from "../connectors/mt4GatewayHarness.ts";
import { mt5WebApiHarness } from "../connectors/mt5WebApiHarness.ts";

const profile = (name: string, extra: Partial<ExecutionProfile> = {}): ExecutionProfile => ({
  name,
  markups: [],
  maxDeviationPoints: null,
  executionDelayMs: 0,
  maxVolumeLots: null,
  staleQuoteMs: null,
  ...extra,
});
const NORMAL = profile("normal");
const NEWS = profile("news", {
  markups: [
    { kind: "group", target: "Forex", bidPoints: 5, askPoints: 5 },
    { kind: "symbol", target: "EURUSD", bidPoints: 10, askPoints: 30 },
  ],
  maxVolumeLots: 20,
  maxDeviationPoints: 10,
  staleQuoteMs: 5_000,
});

const harnesses: [string, () => Promise<ConnectorHarness>][] = [
  ["MT5 Web API", mt5WebApiHarness()],
  ["MT4 gateway", mt4GatewayHarness()],
  ["Match-Trader Broker API", matchTraderApiHarness()],
];

/** What NEWS should do to one symbol, computed apart from core/dealing: markup by path prefix, volume cap in 1/10000 lots. */
function expectedUnderNews(s: TradeSymbol, markups: boolean): TradeSymbol {
  let bid = 0;
  let ask = 0;
  if (markups && s.name === "EURUSD") [bid, ask] = [10, 30];
  else if (markups && s.path.startsWith("Forex\\")) [bid, ask] = [5, 5];
  return { ...s, spread: s.spread + bid + ask, spreadBalance: s.spreadBalance + ask - bid, volumeMax: Math.min(s.volumeMax, 200_000) };
}

describe.each(harnesses)("a dealing profile written through the %s", (_name, make) => {
  let h: ConnectorHarness;
  let originals: DealingOriginals;
  const kept: DealingOriginals[] = [];
  const deps = (): ProfileWriteDeps => ({
    connector: h.connector,
    keep: async (o) => {
      originals = o;
      kept.push(o);
    },
  });
  const serverSymbols = () => h.simulation.engine.symbols().map((s) => structuredClone(s));

  beforeEach(async () => {
    h = await make();
    await h.connector.connect();
    originals = {};
    kept.length = 0;
  });
  afterEach(() => h?.close());

  it("writes exactly the profile's diff, once, and switching back restores every symbol exactly", async () => {
    const initial = serverSymbols();
    const markups = h.connector.platform !== "MatchTrader";

    const result = await writeProfile(deps(), NEWS, originals);
    expect(result.status).toBe("applied");
    const expected = initial.map((s) => expectedUnderNews(s, markups));
    expect(serverSymbols()).toEqual(expected);
    // The audit's diff: exactly the symbols that changed, with only their changed fields.
    const changed = expected.filter((s, i) => configVersion(s) !== configVersion(initial[i]!));
    expect(result.objects.map((o) => o.name).sort()).toEqual(changed.map((s) => s.name).sort());
    const eurusd = result.objects.find((o) => o.name === "EURUSD")!;
    const was = initial.find((s) => s.name === "EURUSD")!;
    expect(eurusd).toEqual(
      markups
        ? {
            kind: "symbol",
            name: "EURUSD",
            before: { spread: was.spread, spreadBalance: 0, volumeMax: 1_000_000 },
            after: { spread: was.spread + 40, spreadBalance: 20, volumeMax: 200_000 },
          }
        : { kind: "symbol", name: "EURUSD", before: { volumeMax: 1_000_000 }, after: { volumeMax: 200_000 } },
    );
    // What the platform type cannot take is said, not silently dropped.
    expect(result.notTaken.map((n) => n.setting).sort()).toEqual(
      markups ? ["maxDeviationPoints", "staleQuoteMs"] : ["markups", "maxDeviationPoints", "staleQuoteMs"],
    );
    // The originals were kept before anything was written.
    expect(kept[0]!["EURUSD"]!.original).toEqual({ spread: was.spread, spreadBalance: 0, volumeMax: 1_000_000 });

    // The same profile again writes nothing.
    const again = await writeProfile(deps(), NEWS, originals);
    expect(again).toMatchObject({ status: "applied", objects: [] });
    expect(serverSymbols()).toEqual(expected);

    const back = await writeProfile(deps(), NORMAL, originals);
    expect(back.status).toBe("applied");
    expect(back.objects.length).toBe(changed.length);
    expect(serverSymbols()).toEqual(initial);
    expect(originals).toEqual({});
  });

  it("a symbol changed by another manager between the read and the write refuses the whole pass, nothing left changed", async () => {
    const initial = serverSymbols();
    const plan = await planWrite(h.connector, NEWS, originals);
    expect(plan.writes.length).toBeGreaterThan(2);
    // Another manager changes the third symbol to be written, after Toolbox read it.
    const target = plan.writes[2]!.name;
    const other = await h.restarted();
    const theirs = (await other.listSymbols()).find((s) => s.name === target)!;
    const swapped = await other.updateSymbol(target, { swapLong: theirs.swapLong - 1 }, configVersion(theirs));

    const result = await writePlan(deps(), NEWS, originals, plan);
    expect(result.status).toBe("refused");
    expect(result.message).toBe(`${target} changed on the server since it was read; nothing was written.`);
    expect(result.current).toEqual(swapped);
    expect(result.objects).toEqual([]);
    // The two written first were undone: the server is as it was, but for the other manager's change.
    expect(serverSymbols()).toEqual(initial.map((s) => (s.name === target ? { ...s, swapLong: s.swapLong - 1 } : s)));
    expect(originals).toEqual({});
  });

  it("a symbol changed outside Toolbox while the profile is in force is left as the server has it", async () => {
    await writeProfile(deps(), NEWS, originals);
    const other = await h.restarted();
    const eurusd = (await other.listSymbols()).find((s) => s.name === "EURUSD")!;
    await other.updateSymbol("EURUSD", { volumeMax: 300_000 }, configVersion(eurusd));

    const back = await writeProfile(deps(), NORMAL, originals);
    expect(back.status).toBe("applied");
    expect(back.skipped).toEqual([
      { name: "EURUSD", message: "EURUSD: volumeMax changed outside Toolbox since the profile was written; left as the server has it (now its own values)." },
    ]);
    expect(h.simulation.engine.symbols().find((s) => s.name === "EURUSD")!.volumeMax).toBe(300_000);
    expect(back.objects.some((o) => o.name === "EURUSD")).toBe(false);
    expect(originals["EURUSD"]).toBeUndefined();
  });
});
