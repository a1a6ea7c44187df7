/**
 * Done means (issue 27), the editors as a dealer uses them (docs/server-configuration.md): on a
 * simulated MT5 server, the margin call level of two groups (one bulk edit) and the contract size
 * of EURUSD are staged, read as a diff in the Changes panel, applied, found in the audit log with
 * before/after, and one is reverted from the group's history; on a simulated Match-Trader server an
 * offer is edited the same way; a staged change to a group changed meanwhile through the API is
 * refused with the staged and the server's versions side by side, then staged again on the
 * server's version and applied. Every value is checked against the server as the API reads it.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, Locator, Page } from "playwright-core";
import type { Group } from "../../core/trading/group.ts";
import type { TradeSymbol } from "../../core/trading/symbol.ts";
import { launchBrowser, newContext, toastsSeen } from "./browser.ts";
import { apiAs } from "./support/api.ts";
import { connectSimulated, connectSimulatedMt5 } from "./support/platforms.ts";
import { signUp } from "./support/people.ts";

type Item<T> = { version: string; object: T };
type Result = { status: string; message: string | null };

describe("the server configuration editors as a dealer uses them", () => {
  let browser: Browser;
  let page: Page;
  let api: ReturnType<typeof apiAs>;
  let mt5: string;
  let matchTrader: string;
  beforeAll(async () => {
    browser = await launchBrowser();
    page = await (await newContext(browser, { viewport: { width: 1600, height: 1000 } })).newPage();
    await signUp(page, { name: "Dora Dealer", email: `dora.${Date.now()}@example.com`, password: "stage-then-apply-1" });
    api = apiAs(page);
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
  });

  const groups = async (platform: string) => (await api.get<{ items: Item<Group>[] }>(`/api/tradePlatforms/${platform}/config/groups`)).items;
  const group = async (platform: string, name: string) => (await groups(platform)).find((i) => i.object.name === name)!;
  const symbol = async (platform: string, name: string) =>
    (await api.get<{ items: Item<TradeSymbol>[] }>(`/api/tradePlatforms/${platform}/config/symbols`)).items.find((i) => i.object.name === name)!;

  const changes = () => page.getByRole("region", { name: "Changes" });
  /** One staged change in the Changes panel ("Group real\\standard", "Symbol EURUSD"). */
  const staged = (name: string) => changes().getByRole("group", { name, exact: true });
  /** The diff lines of one staged change, as read. */
  const diff = async (name: string) => (await staged(name).getByRole("listitem").allTextContents()).map((t) => t.replace(/\s+/g, " ").trim());
  const applyAll = async (count: number, toast: RegExp) => {
    const before = toastsSeen(page).length;
    await changes()
      .getByRole("button", { name: `Apply ${count} change(s)` })
      .click();
    await expect.poll(() => toastsSeen(page).slice(before).join("|"), { timeout: 20_000 }).toMatch(toast);
  };
  /** A row of an editor's grid, found through its search box, opened as its form. */
  const openObject = async (grid: string, name: string): Promise<Locator> => {
    await page.getByLabel(`Search ${grid.toLowerCase()}`).fill(name);
    await page.getByRole("region", { name: grid }).getByRole("gridcell", { name, exact: true }).click();
    const dialog = page.getByRole("dialog");
    await dialog.waitFor({ timeout: 10_000 });
    return dialog;
  };

  /** Through the sidebar (its platform list names each with its type badge): a platform's settings, then one of its sections (client-side navigation, no reload). */
  const openSection = async (platformName: string, section: string) => {
    await page
      .getByRole("complementary", { name: "Sidebar" })
      .getByRole("link", { name: new RegExp(platformName) })
      .click();
    await page.getByRole("navigation", { name: "Trade platform settings sections" }).getByRole("link", { name: section }).click();
  };

  /**
   * The audit log's server configuration records of one platform, newest first, as the dealer
   * reads them (Logs, filtered by action and target, each record opened): action, target, and each
   * changed field's `before → after`. Waits until `count` records are listed.
   */
  async function audited(platformId: string, count: number): Promise<{ action: string; target: string; changes: Record<string, string> }[]> {
    await page.getByRole("navigation", { name: "Areas" }).getByRole("link", { name: "Logs" }).click();
    const filters = page.getByRole("form", { name: "Audit log filters" });
    await filters.getByLabel("Action").fill("serverConfig");
    await filters.getByLabel("Target").fill(platformId);
    await filters.getByRole("button", { name: "Apply", exact: true }).click();
    const grid = page.getByRole("region", { name: "Audit log" });
    const rows = grid.getByRole("row").filter({ hasText: "serverConfig." });
    await expect.poll(() => rows.count(), { timeout: 20_000 }).toBe(count);
    const records = [];
    for (let i = 0; i < count; i++) {
      await rows.nth(i).click();
      const panel = page.getByRole("dialog");
      const action = (await panel.getByRole("heading").first().textContent())?.trim() ?? "";
      const target = (await panel.getByRole("definition").nth(1).textContent())?.trim() ?? "";
      const changes: Record<string, string> = {};
      for (const line of await panel.getByRole("table", { name: "Changes" }).locator("tbody tr").all()) {
        const field = ((await line.getByRole("rowheader").textContent()) ?? "").replace(/\s*\(\w+\)$/, "").trim();
        changes[field] = (await line.getByRole("cell").allTextContents()).map((c) => c.trim()).join(" → ");
      }
      records.push({ action, target, changes });
      await page.keyboard.press("Escape");
      await panel.waitFor({ state: "detached" });
    }
    return records;
  }

  /** Records in a stable order (two written in the same millisecond may be listed either way). */
  const sorted = <T>(records: T[]) => [...records].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));

  it("stages two groups' margin call levels (one bulk edit) and EURUSD's contract size, reads the diff, applies it, reverts one, and finds each audited", async () => {
    [mt5, matchTrader] = await Promise.all([connectSimulatedMt5(page, "Config MT5", 3), connectSimulated(page, "MatchTrader", "Config Match-Trader")]);
    // Two groups whose levels are in percent (the dealer knows their names; the test reads them).
    const [first, second] = (await groups(mt5)).filter((i) => i.object.marginLevelMode === "percent");
    if (!first || !second) throw new Error("two groups in percent expected on the simulated MT5 server");
    const eurusd = await symbol(mt5, "EURUSD");
    const level = Math.max(first.object.marginCall, second.object.marginCall) + 17;
    const contractSize = eurusd.object.contractSize / 2;

    await page.goto(`/tradePlatforms/MT5/${mt5}/settings`);
    await page.getByRole("navigation", { name: "Trade platform settings sections" }).getByRole("link", { name: "MT4/MT5 editor" }).click();
    await page.getByRole("region", { name: "Groups" }).waitFor({ timeout: 20_000 });
    await changes().getByText("No staged change.").waitFor();

    // Bulk edit: tick both groups (found through the search), set the margin call level of both.
    for (const g of [first, second]) {
      await page.getByLabel("Search groups").fill(g.object.name);
      const box = page.getByRole("checkbox", { name: `Select ${g.object.name}`, exact: true });
      await box.click();
      await expect.poll(() => box.isChecked()).toBe(true);
    }
    await page.getByLabel("Search groups").fill("");
    await page.getByRole("combobox", { name: "Field to set" }).click();
    await page.getByRole("option", { name: "Margin call level", exact: true }).click();
    await page.getByLabel("Value to set").fill(String(level));
    await page.getByRole("button", { name: "Stage for 2" }).click();

    // EURUSD's form: the contract size halved.
    await page.getByRole("tab", { name: "Symbols" }).click();
    const form = await openObject("Symbols", "EURUSD");
    await form.getByLabel("Contract size (units per lot)").fill(String(contractSize));
    await form.getByRole("button", { name: "Stage changes" }).click();
    await form.waitFor({ state: "detached" });

    // The diff, one change per object, field: before → after; nothing sent yet.
    expect(await diff(`Group ${first.object.name}`)).toEqual([`Margin call level: ${first.object.marginCall} → ${level}`]);
    expect(await diff(`Group ${second.object.name}`)).toEqual([`Margin call level: ${second.object.marginCall} → ${level}`]);
    expect(await diff("Symbol EURUSD")).toEqual([`Contract size (units per lot): ${eurusd.object.contractSize} → ${contractSize}`]);
    expect((await group(mt5, first.object.name)).version).toBe(first.version);

    await applyAll(3, /Changes applied/);
    await changes().getByText("No staged change.").waitFor();
    // Written on the server exactly as shown, nothing else.
    expect((await group(mt5, first.object.name)).object).toEqual({ ...first.object, marginCall: level });
    expect((await group(mt5, second.object.name)).object).toEqual({ ...second.object, marginCall: level });
    expect((await symbol(mt5, "EURUSD")).object).toEqual({ ...eurusd.object, contractSize });

    // The second group's history offers Revert: it stages the inverse change, applied like any other.
    await page.getByRole("tab", { name: "Groups" }).click();
    const groupForm = await openObject("Groups", second.object.name);
    const entry = groupForm
      .getByRole("region", { name: "Change history" })
      .getByTestId("history-entry")
      .filter({ hasText: `Margin call level: ${second.object.marginCall} → ${level}` });
    await entry.waitFor({ timeout: 10_000 });
    await entry.getByRole("button", { name: "Revert" }).click();
    await groupForm.waitFor({ state: "detached" });
    expect(await diff(`Group ${second.object.name}`)).toEqual([`Margin call level: ${level} → ${second.object.marginCall}`]);
    await applyAll(1, /Changes applied/);
    await changes().getByText("No staged change.").waitFor();
    expect((await group(mt5, second.object.name)).object).toEqual(second.object);
    expect((await group(mt5, first.object.name)).object.marginCall).toBe(level);

    // The audit log: one record per applied change, with the field's value before and after.
    const groupTarget = (g: Item<Group>) => `serverConfig.group ${mt5}/${g.object.name}`;
    expect(sorted(await audited(mt5, 4))).toEqual(
      sorted([
        { action: "serverConfig.group.changed", target: groupTarget(first), changes: { marginCall: `${first.object.marginCall} → ${level}` } },
        { action: "serverConfig.group.changed", target: groupTarget(second), changes: { marginCall: `${second.object.marginCall} → ${level}` } },
        { action: "serverConfig.group.changed", target: groupTarget(second), changes: { marginCall: `${level} → ${second.object.marginCall}` } },
        {
          action: "serverConfig.symbol.changed",
          target: `serverConfig.symbol ${mt5}/EURUSD`,
          changes: { contractSize: `${eurusd.object.contractSize} → ${contractSize}` },
        },
      ]),
    );
  }, 120_000);

  it("refuses a staged change to a group changed meanwhile through the API, showing both versions; staged again on the server's version, it applies", async () => {
    const target = (await groups(mt5)).find((i) => i.object.marginLevelMode === "percent")!;
    const name = target.object.name;
    await openSection("Config MT5", "MT4/MT5 editor");
    const form = await openObject("Groups", name);
    await form.getByLabel("Margin call level").fill(String(target.object.marginCall + 5));
    await form.getByRole("button", { name: "Stage changes" }).click();
    await form.waitFor({ state: "detached" });

    // Another manager changes the group's leverage meanwhile (the API, as another member would).
    const leverage = target.object.defaultLeverage === 222 ? 333 : 222;
    const meanwhile = await api.post<{ results: Result[] }>(`/api/tradePlatforms/${mt5}/config/apply`, {
      changes: [{ kind: "group", name, expected: target.version, patch: { defaultLeverage: leverage } }],
    });
    expect(meanwhile.json.results.map((r) => r.status)).toEqual(["applied"]);

    await applyAll(1, /0 applied, 1 refused/);
    const refused = staged(`Group ${name}`);
    await refused.getByText("Changed on the server").waitFor();
    // Both versions: the staged change (before → after) with the server's value now, and what changed on the server.
    expect(await diff(`Group ${name}`)).toEqual([
      `Margin call level: ${target.object.marginCall} → ${target.object.marginCall + 5} (server now: ${target.object.marginCall})`,
      `Server meanwhile, Default leverage (1:N): ${target.object.defaultLeverage} → ${leverage}`,
    ]);
    expect(await refused.getByRole("list", { name: "Changed on the server meanwhile" }).getByRole("listitem").count()).toBe(1);
    // Nothing of the refused change was written.
    expect((await group(mt5, name)).object).toEqual({ ...target.object, defaultLeverage: leverage });

    await refused.getByRole("button", { name: "Stage again on the server's version" }).click();
    await expect.poll(() => refused.getByText("Changed on the server").count()).toBe(0);
    await applyAll(1, /Changes applied/);
    expect((await group(mt5, name)).object).toEqual({ ...target.object, defaultLeverage: leverage, marginCall: target.object.marginCall + 5 });
  }, 60_000);

  it("edits a Match-Trader offer the same way: staged, read as a diff, applied, reverted, audited", async () => {
    const offer = (await groups(matchTrader))[0]!;
    const leverage = offer.object.defaultLeverage === 200 ? 300 : 200;

    await openSection("Config Match-Trader", "Match-Trader editor");
    await page.getByRole("tab", { name: "Offers / groups", selected: true }).waitFor({ timeout: 20_000 });
    const form = await openObject("Offers", offer.object.name);
    await form.getByLabel("Default leverage (1:N)").fill(String(leverage));
    await form.getByRole("button", { name: "Stage changes" }).click();
    await form.waitFor({ state: "detached" });
    expect(await diff(`Group ${offer.object.name}`)).toEqual([`Default leverage (1:N): ${offer.object.defaultLeverage} → ${leverage}`]);
    expect((await group(matchTrader, offer.object.name)).version).toBe(offer.version);

    await applyAll(1, /Changes applied/);
    expect((await group(matchTrader, offer.object.name)).object).toEqual({ ...offer.object, defaultLeverage: leverage });

    const again = await openObject("Offers", offer.object.name);
    const entry = again.getByTestId("history-entry").filter({ hasText: `Default leverage (1:N): ${offer.object.defaultLeverage} → ${leverage}` });
    await entry.waitFor({ timeout: 10_000 });
    await entry.getByRole("button", { name: "Revert" }).click();
    expect(await diff(`Group ${offer.object.name}`)).toEqual([`Default leverage (1:N): ${leverage} → ${offer.object.defaultLeverage}`]);
    await applyAll(1, /Changes applied/);
    expect((await group(matchTrader, offer.object.name)).object).toEqual(offer.object);

    const target = `serverConfig.group ${matchTrader}/${offer.object.name}`;
    expect(sorted(await audited(matchTrader, 2))).toEqual(
      sorted([
        { action: "serverConfig.group.changed", target, changes: { defaultLeverage: `${offer.object.defaultLeverage} → ${leverage}` } },
        { action: "serverConfig.group.changed", target, changes: { defaultLeverage: `${leverage} → ${offer.object.defaultLeverage}` } },
      ]),
    );
  }, 90_000);
});
