/**
 * What the copier's engine tests share: a simulated platform with the Trades Copier assigned,
 * the accounts on it that can trade large volumes, and a bounded poll (the engine works on the
 * bus's time, not the test's).
 */
import { expect } from "vitest";
import type { TradePlatformConnector } from "../../../server/connectors/connector.ts";
import type { TestApp } from "../../helpers/testApp.ts";

/** Creates a simulated platform (no simulated trading) and assigns it the Trades Copier; answers its id. */
export async function simulatedCopierPlatform(
  t: Pick<TestApp, "app">,
  headers: Record<string, string>,
  opts: { type: "MT5" | "MT4" | "MatchTrader"; name: string; seed: number; accounts?: number },
): Promise<string> {
  const res = await t.app.inject({
    method: "POST",
    url: "/api/tradePlatforms",
    headers,
    payload: {
      type: opts.type,
      name: opts.name,
      timeZone: "UTC",
      connection: { kind: "simulated", accounts: opts.accounts ?? 10, tradeRate: 0, seed: opts.seed },
    },
  });
  expect(res.statusCode, res.body).toBe(201);
  const id = res.json<{ id: string }>().id;
  const apps = await t.app.inject({ method: "PUT", url: `/api/tradePlatforms/${id}/apps`, headers, payload: [{ app: "tradesCopier", enabled: true }] });
  expect(apps.statusCode, apps.body).toBe(200);
  return id;
}

/** The enabled, tradable accounts with more than a million of balance. */
export async function tradingLogins(connector: TradePlatformConnector): Promise<string[]> {
  const accounts = (await connector.listAccounts({ limit: 100 })).items;
  return accounts.filter((a) => a.enabled && !a.readOnly && a.balance > 1_000_000).map((a) => a.login);
}

/** Polls every 20 ms until `check` answers something truthy, for 20 s at most. */
export async function until<T>(what: string, check: () => Promise<T | undefined | null | false>): Promise<T> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
