/**
 * A dealer works a client's position from the account panel (issue 24 §3): on an MT5 server (the
 * local MT5 Web API protocol server, started by this test on a simulated engine of its own, where
 * the client opens 0.3 lots of BTCUSD, a market open every day of the week), the dealer opens the
 * account, sets a take profit from the keyboard, closes 0.1 lots (a volume under the symbol's minimum
 * first: the field says so), then the rest; each through a confirm step, each answered by a toast,
 * the row following. The platform's own positions and deals are the figures checked.
 */
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_MANAGER, SimulatedServer } from "../../server/connectors/simulated/server.ts";
import { selfSignedCertificate } from "../../server/protocolServers/certificates.ts";
import { Mt5WebApiServer } from "../../server/protocolServers/mt5WebApi/server.ts";
import { demo, launchBrowser, newContext, signInAtProvider, toastsSeen } from "./browser.ts";
import { apiAs } from "./support/api.ts";

describe("a dealer modifies, partly closes and closes a client's position", () => {
  let browser: Browser;
  let page: Page;
  let simulated: SimulatedServer;
  let server: Mt5WebApiServer;
  let platformId: string;
  let login: string;
  /** The position as Toolbox names it (the MT5 ticket), and as the engine behind the server does. */
  let positionId: string;
  let enginePositionId: string;

  beforeAll(async () => {
    const tls = await selfSignedCertificate();
    simulated = new SimulatedServer({ platform: "MT5", seed: 2424, accounts: 8, tradeRate: 0 });
    simulated.start();
    server = new Mt5WebApiServer({ simulated, tls });
    const address = `127.0.0.1:${(await server.listen()).port}`;

    browser = await launchBrowser();
    page = await (await newContext(browser, { viewport: { width: 1440, height: 900 } })).newPage();
    await page.goto("/users");
    await page.waitForURL((u) => u.pathname.startsWith("/oidc/"), { timeout: 20_000 });
    await signInAtProvider(page, demo());
    await page.waitForURL((u) => u.pathname === "/users", { timeout: 20_000 });
    await page.getByRole("button", { name: /^Organization:/ }).waitFor({ timeout: 20_000 });

    const api = apiAs(page);
    const created = await api.post<{ id: string }>("/api/tradePlatforms", {
      type: "MT5",
      name: `Client MT5 ${Date.now()}`,
      timeZone: "UTC",
      connection: { kind: "mt5WebApi", address, login: DEFAULT_MANAGER.login, password: DEFAULT_MANAGER.password, caCertificate: tls.ca },
    });
    expect(created.status, created.text).toBe(201);
    platformId = created.json.id;
    type Row = { login: string; balance: string; enabled: boolean; readOnly: boolean };
    // Once the mirror holds the server's accounts (expect.poll is for tests only).
    let rows: Row[] = [];
    for (const deadline = Date.now() + 30_000; rows.length < 8; await page.waitForTimeout(100)) {
      if (Date.now() > deadline) throw new Error("the server's accounts did not arrive");
      rows = (await api.get<{ items: Row[] }>(`/api/accounts?platformId=${platformId}&limit=100`)).items;
    }
    login = rows.find((r) => r.enabled && !r.readOnly && Number(r.balance) > 10_000)!.login;

    // The client buys 0.3 lots of BTCUSD at a known price.
    simulated.engine.setQuote("BTCUSD", 46_000, 46_020);
    const opened = simulated.engine.placeOrder({ requestId: crypto.randomUUID(), login, symbol: "BTCUSD", side: "buy", volume: 3000 });
    enginePositionId = opened.positionId;
    const listed = await api.get<{ id: string; symbol: string; volume: string }[]>(`/api/accounts/${platformId}/${login}/positions`);
    positionId = listed.find((p) => p.symbol === "BTCUSD" && p.volume === "0.3")!.id;
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    simulated?.stop();
  });

  const grid = () => page.locator('[role="region"][aria-label="Open positions"]');
  const cell = (colId: string) => grid().locator(`.ag-row[row-id="${positionId}"] [col-id="${colId}"]`).first();
  const platformPosition = () => simulated.engine.positions(login).find((p) => p.id === enginePositionId);

  it("changes the take profit from the keyboard, after a confirm step", async () => {
    await page.goto(`/users?account=${platformId}:${login}`);
    const panel = page.getByRole("dialog", { name: new RegExp(login) });
    await panel.getByRole("tab", { name: "Open positions" }).waitFor({ timeout: 30_000 });
    await expect.poll(() => cell("volume").textContent(), { timeout: 30_000 }).toBe("0.3");

    // Arrow keys reach the actions cell; Enter opens its menu.
    await cell("actions").focus();
    await page.keyboard.press("Enter");
    const menu = page.getByRole("menu");
    await menu.waitFor();
    // Typeahead: "M" highlights "Modify SL/TP".
    await page.keyboard.press("m");
    await expect.poll(() => menu.getByRole("menuitem", { name: "Modify SL/TP" }).getAttribute("data-highlighted")).not.toBeNull();
    await page.keyboard.press("Enter");

    const dialog = page.getByRole("dialog", { name: `Modify SL/TP · position ${positionId}` });
    await dialog.getByLabel("Take profit").waitFor();
    await dialog.getByLabel("Take profit").fill("48000");
    await page.keyboard.press("Enter");
    const what = dialog.getByRole("group", { name: "What will happen" });
    await what.waitFor();
    expect(await what.textContent()).toContain("Take profit" + "none → 48000.00");
    // Nothing is sent before the confirmation.
    expect(platformPosition()?.tp).toBeNull();
    await dialog.getByRole("button", { name: "Change stops" }).click();
    await dialog.waitFor({ state: "detached" });
    await expect.poll(() => toastsSeen(page).some((t) => t.includes("Stops changed") && t.includes("take profit 48000.00"))).toBe(true);
    expect(platformPosition()).toMatchObject({ tp: 48_000, sl: null, volume: 3000 });
    await expect.poll(() => cell("tp").textContent()).toBe("48000");
  });

  it("closes 0.1 lots: a volume under the symbol's minimum is the field's message; the row keeps 0.2", async () => {
    await page.getByRole("button", { name: `Actions for position ${positionId}` }).click();
    await page.getByRole("menuitem", { name: "Partial close" }).click();
    const dialog = page.getByRole("dialog", { name: `Partial close · position ${positionId}` });
    await dialog.getByLabel("Lots to close").fill("0.005");
    await dialog.getByRole("button", { name: "Review" }).click();
    await dialog.getByText("Close at least 0.01 lots (the symbol's minimum).").waitFor();
    await dialog.getByLabel("Lots to close").fill("0.1");
    await dialog.getByRole("button", { name: "Review" }).click();
    const what = dialog.getByRole("group", { name: "What will happen" });
    expect(await what.textContent()).toMatch(/Lots closed\s*0\.1\s*Lots left open\s*0\.2/);
    await dialog.getByRole("button", { name: "Close 0.1 lots" }).click();
    await dialog.waitFor({ state: "detached" });
    await expect.poll(() => toastsSeen(page).some((t) => t.includes("Position partly closed") && t.includes("0.2 lots stay open"))).toBe(true);
    expect(platformPosition()).toMatchObject({ volume: 2000, tp: 48_000 });
    await expect.poll(() => cell("volume").textContent()).toBe("0.2");
  });

  it("closes the rest; the row goes and the deals say 0.1 then 0.2 lots out", async () => {
    await page.getByRole("button", { name: `Actions for position ${positionId}` }).click();
    await page.getByRole("menuitem", { name: "Close", exact: true }).click();
    const dialog = page.getByRole("dialog", { name: `Close · position ${positionId}` });
    expect(await dialog.getByRole("group", { name: "What will happen" }).textContent()).toMatch(/closes wholly at the market price/);
    await dialog.getByRole("button", { name: "Close position" }).click();
    await dialog.waitFor({ state: "detached" });
    await expect.poll(() => toastsSeen(page).some((t) => t.includes("Position closed") && t.includes("0.2 lots BTCUSD closed"))).toBe(true);
    expect(platformPosition()).toBeUndefined();
    await grid().getByText("No open position.").waitFor({ timeout: 15_000 });
    const outs = simulated.engine
      .history(login, 0, Date.now() + 86_400_000)
      .deals.filter((d) => d.positionId === enginePositionId && d.entry === "out")
      .map((d) => d.volume);
    expect(outs).toEqual([1000, 2000]);
  });
});
