/**
 * A risk manager sets up Flexible Leverage on a simulated MT5 server (issue 28 "Done means",
 * docs/flexible-leverage.md): from the platform's plugins they open the editor, add a rule for
 * `real*` groups with an equity ladder, reorder the rules by dragging and with the keyboard, see in
 * the preview that an account with 60,000 equity goes to the top tier's leverage and why, and save;
 * the account's leverage changes on the server (read back live through the API), the change shows
 * on the account's detail and in the inbox, and a weekend window applies at its time on a clock the
 * test controls (`POST …/simulator/clock`).
 *
 * The account is made to hold exactly 60,000 (a deposit or withdrawal through the API before the
 * editor opens; an account without open positions, so its equity is its balance). Every wait is on
 * something the page or the API shows, never a fixed sleep.
 */
import crypto from "node:crypto";
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from "vitest";
import type { Browser, Page } from "playwright-core";
import { launchBrowser, newContext, toastsSeen } from "./browser.ts";
import { apiAs } from "./support/api.ts";
import { signUp } from "./support/people.ts";
import { connectSimulatedMt5 } from "./support/platforms.ts";

const PLUGIN = "CPlugin.MT5Plugin.FlexibleLeverage";
const money = (s: string) => Number(s.replace(/[^\d.-]/g, ""));

interface AccountRow {
  login: string;
  group: string;
  equity: string;
  leverage: number;
}

/** The rule names in the editor's list, in order ("1. Real equity" → "Real equity"). */
const ruleOrder = (page: Page) =>
  page
    .getByRole("list", { name: "Rules, in order" })
    .locator("li > button[aria-current]")
    .allTextContents()
    .then((names) =>
      names.map((n) =>
        n
          .replace(/^\d+\.\s*/, "")
          .replace(/\s*\(inactive\).*$/, "")
          .trim(),
      ),
    );

describe("a risk manager and Flexible Leverage", () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(() => browser?.close());

  it("adds a rule for real* groups with an equity ladder, reorders it, previews the 60,000 account's tier, saves it onto the server, sees the change on the detail and in the inbox, and a weekend window at its time", async () => {
    const page = await (await newContext(browser)).newPage();
    onTestFailed(async () => {
      await page.screenshot({ path: "test-results/flexible-leverage-failure.png", fullPage: true }).catch(() => undefined);
    });
    await signUp(page, { name: "Rosa Risk", email: `rosa.${Date.now()}@example.com`, password: "equity-ladder-2026" });
    const api = apiAs(page);
    const platformId = await connectSimulatedMt5(page, "Risk MT5", 40);

    // An account in a real group without open positions (its equity is its balance), brought to
    // exactly 60,000 USD, once the accounts mirror (what the preview reads) has it.
    const accountsOf = () => api.get<{ items: AccountRow[]; total: number }>(`/api/accounts?platformId=${platformId}&groupMask=real*&limit=100&sort=login`);
    await expect.poll(async () => (await accountsOf()).total, { timeout: 30_000 }).toBeGreaterThan(0);
    let target: AccountRow | undefined;
    for (const account of (await accountsOf()).items) {
      const positions = await api.get<unknown[]>(`/api/accounts/${platformId}/${account.login}/positions`);
      if (positions.length === 0) {
        target = account;
        break;
      }
    }
    expect(target, "an account in a real group without open positions").toBeDefined();
    const login = target!.login;
    // Equity is balance + credit without positions: the difference is made on the balance.
    const difference = Math.round((60_000 - money(target!.equity)) * 100) / 100;
    if (difference !== 0) {
      const op = await api.post(
        `/api/accounts/${platformId}/${login}/balance-operations`,
        { type: difference > 0 ? "deposit" : "withdrawal", amount: Math.abs(difference).toFixed(2), comment: "to 60,000 for the ladder" },
        { "Idempotency-Key": crypto.randomUUID() },
      );
      expect(op.status, op.text).toBe(201);
    }
    await expect.poll(async () => money((await accountsOf()).items.find((a) => a.login === login)!.equity), { timeout: 20_000 }).toBe(60_000);
    // The top tier's leverage: one the account does not have now (the group's default, 1:100, caps it).
    const before = (await api.get<{ leverage: number }>(`/api/accounts/${platformId}/${login}`)).leverage;
    const tierLeverage = [33, 25, 20].find((l) => l !== before)!;

    // Settings → Plugins → the Flexible Leverage plugin's editor.
    await page.goto(`/tradePlatforms/MT5/${platformId}/settings`);
    await page.getByRole("link", { name: "Plugins", exact: true }).first().click();
    await page.getByRole("link", { name: "Open editor" }).first().click();
    await page.waitForURL((u) => u.pathname.endsWith(".MT5Plugin.FlexibleLeverage"), { timeout: 20_000 });
    await page.getByRole("heading", { name: "Rules" }).waitFor({ timeout: 60_000 });
    await page.getByText("No rules: the plugin changes no leverage.").waitFor();

    // A rule for real* groups with an equity ladder: 1:100 from 0, 1:tier from 50,000.
    await page.getByRole("button", { name: "Add a rule" }).click();
    const form = page.getByRole("group", { name: /^Rule 1:/ });
    await form.getByLabel("Name", { exact: true }).fill("Real equity");
    await form.getByLabel("Groups", { exact: true }).fill("real*");
    await form.getByLabel("Tier 1 threshold").fill("0");
    await form.getByLabel("Tier 1 leverage").fill("100");
    await form.getByRole("button", { name: "Add a tier" }).click();
    await form.getByLabel("Tier 2 threshold").fill("50000");
    await form.getByLabel("Tier 2 leverage").fill(String(tierLeverage));

    // A second rule, for demo groups, added after it; dragged above it, then moved back down with
    // the keyboard on its handle (the first rule that applies wins, so the order is the rules' meaning).
    await page.getByRole("button", { name: "Add a rule" }).click();
    await page
      .getByRole("group", { name: /^Rule 2:/ })
      .getByLabel("Name", { exact: true })
      .fill("Demo");
    await page
      .getByRole("group", { name: /^Rule 2:/ })
      .getByLabel("Groups", { exact: true })
      .fill("demo*");
    await expect.poll(() => ruleOrder(page)).toEqual(["Real equity", "Demo"]);
    const rules = page.getByRole("list", { name: "Rules, in order" });
    const demoRow = rules.locator("li").filter({ hasText: "Demo" });
    const realRow = rules.locator("li").filter({ hasText: "Real equity" });
    await demoRow.dragTo(realRow, { targetPosition: { x: 20, y: 2 } });
    await expect.poll(() => ruleOrder(page)).toEqual(["Demo", "Real equity"]);
    const demoHandle = rules.getByRole("button", { name: /^Reorder Demo, position 1 of 2/ });
    await demoHandle.focus();
    await page.keyboard.press("ArrowDown");
    await expect.poll(() => ruleOrder(page)).toEqual(["Real equity", "Demo"]);
    // The focus stays on the moved rule's handle, and a screen reader hears where it went.
    await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute("aria-label"))).toMatch(/^Reorder Demo, position 2 of 2/);
    await page.getByText("Demo moved to position 2 of 2.").waitFor({ state: "attached" });

    // The preview, searched by the account's login: the top tier's leverage, and why.
    await page.getByLabel("Login starts with").fill(login);
    const row = page.locator('[role="region"][aria-label="Preview of the leverages"] [role="row"]').filter({ hasText: login });
    await expect
      .poll(async () => ((await row.count()) > 0 ? ((await row.first().textContent()) ?? "") : ""), { timeout: 20_000 })
      .toMatch(new RegExp(`60,000\\.00 USD.*1:${before}.*1:${tierLeverage}.*rule 'Real equity', tier ≥ 50,000(\\.00)? USD equity → 1:${tierLeverage}`));

    // Save: the rules go into the plugin, which changes the account's leverage on the server.
    await page.getByRole("button", { name: "Save on the server" }).click();
    await expect.poll(() => toastsSeen(page).some((t) => t.includes("Flexible Leverage saved")), { timeout: 20_000 }).toBe(true);
    const saved = await api.get<{ settings: { rules: { name: string; groups: string; tiers: { threshold: number; leverage: number }[] }[] } }>(
      `/api/tradePlatforms/${platformId}/plugins/${PLUGIN}/flexibleLeverage`,
    );
    expect(saved.settings.rules.map((r) => r.name)).toEqual(["Real equity", "Demo"]);
    expect(saved.settings.rules[0]).toMatchObject({
      groups: "real*",
      tiers: [
        { threshold: 0, leverage: 100 },
        { threshold: 50_000, leverage: tierLeverage },
      ],
    });
    await expect
      .poll(async () => (await api.get<{ leverage: number }>(`/api/accounts/${platformId}/${login}`)).leverage, { timeout: 20_000 })
      .toBe(tierLeverage);

    // The change shows on the account's detail (from, to, the rule, made by the server's plugin) …
    await page.goto(`/users?account=${platformId}:${login}`);
    const panel = page.getByRole("dialog", { name: new RegExp(login) });
    const change = panel.getByTestId("leverage-change").filter({ hasText: `1:${before} → 1:${tierLeverage}` });
    await change.first().waitFor({ timeout: 30_000 });
    expect(await change.first().textContent()).toMatch(/rule 'Real equity'.*tier 2.*server's plugin.*tier ≥ 50,000(\.00)? USD equity/);
    // … and in the inbox.
    await page.goto("/inbox");
    await page.getByRole("listitem", { name: new RegExp(`Leverage of ${login} changed to 1:${tierLeverage}`) }).waitFor({ timeout: 30_000 });

    // A weekend window on the rule applies at its time, on a clock the test controls: the server's
    // clock is set to a Wednesday, the window (Friday 21:00 → Sunday 21:00 at 1:10) saved, then the
    // clock moved into a Saturday and back out.
    const clock = async (serverClock: string) => {
      const moved = await api.call<{ serverTime: string }>("POST", `/api/tradePlatforms/${platformId}/simulator/clock`, { serverClock });
      expect(moved.status, moved.text).toBe(200);
      return moved.json.serverTime;
    };
    expect(await clock("2026-12-02T12:00:00Z")).toMatch(/^2026-12-02T/);
    await page.goto(`/tradePlatforms/MT5/${platformId}/settings`);
    await page.getByRole("link", { name: "Plugins", exact: true }).first().click();
    await page.getByRole("link", { name: "Open editor" }).first().click();
    const realRule = page.getByRole("group", { name: /^Rule 1:/ });
    await realRule.getByRole("button", { name: "Weekend window" }).waitFor({ timeout: 60_000 });
    await realRule.getByRole("button", { name: "Weekend window" }).click();
    await realRule.getByLabel("Window 1 leverage 1:").fill("10");
    await page.getByRole("button", { name: "Save on the server" }).click();
    await expect
      .poll(
        async () =>
          (
            await api.get<{ settings: { rules: { windows: { kind: string; leverage: number }[] }[] } }>(
              `/api/tradePlatforms/${platformId}/plugins/${PLUGIN}/flexibleLeverage`,
            )
          ).settings.rules[0]?.windows,
        { timeout: 20_000 },
      )
      .toEqual([expect.objectContaining({ kind: "weekend", leverage: 10 })]);
    const leverageNow = async () => (await api.get<{ leverage: number }>(`/api/accounts/${platformId}/${login}`)).leverage;
    // A Wednesday: outside the window, the ladder still holds.
    expect(await leverageNow()).toBe(tierLeverage);
    expect(await clock("2026-12-05T12:00:00Z")).toMatch(/^2026-12-05T/);
    await expect.poll(leverageNow, { timeout: 20_000 }).toBe(10);
    expect(await clock("2026-12-07T12:00:00Z")).toMatch(/^2026-12-07T/);
    await expect.poll(leverageNow, { timeout: 20_000 }).toBe(tierLeverage);
  }, 240_000);
});
