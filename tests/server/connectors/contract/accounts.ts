/** Contract: listing and paging accounts, reading, creating and changing them, groups, symbols, quotes. */
import { expect, it } from "vitest";
import type { Account, TradeEvent } from "../../../../core/trading/index.ts";
import type { ConnectorHarness } from "./harness.ts";
import { collect, expectConnectorError, settle } from "./helpers.ts";

async function everyAccount(h: ConnectorHarness, limit: number, groupMask?: string): Promise<Account[]> {
  const all: Account[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < 10_000; page++) {
    const result: { items: Account[]; nextCursor: string | null } = await h.connector.listAccounts({ cursor, limit, groupMask });
    expect(result.items.length).toBeLessThanOrEqual(limit);
    all.push(...result.items);
    cursor = result.nextCursor;
    if (!cursor) return all;
  }
  throw new Error("Paging never ended");
}

export function accountContract(h: () => ConnectorHarness): void {
  it("pages through every account once, in login order, whatever the page size", async () => {
    const small = await everyAccount(h(), 37);
    const large = await everyAccount(h(), 1000);
    expect(small.length).toBeGreaterThan(37);
    const logins = small.map((a) => a.login);
    expect(new Set(logins).size).toBe(logins.length);
    expect(logins).toEqual([...logins].sort((a, b) => Number(a) - Number(b)));
    expect(logins).toEqual(large.map((a) => a.login));
    const secretFields = /"(password|investorPassword|passwordHash|investorHash|otpSecret)"/;
    expect(secretFields.test(JSON.stringify(small)), "an account carries a secret").toBe(false);
  });

  it("filters by group mask, exclusions included", async () => {
    const harness = h();
    const groups = await harness.connector.listGroups();
    const first = groups[0]?.name ?? "";
    const only = await everyAccount(harness, 100, first);
    expect(only.length).toBeGreaterThan(0);
    expect(only.every((a) => a.group === first)).toBe(true);
    const others = await everyAccount(harness, 100, `*,!${first}`);
    expect(others.some((a) => a.group === first)).toBe(false);
    expect(others.length + only.length).toBe((await everyAccount(harness, 1000)).length);
  });

  it("refuses a bad page link and page size", async () => {
    const { connector } = h();
    await expectConnectorError(connector.listAccounts({ cursor: "bm9wZQ" }), "invalidRequest");
    await expectConnectorError(connector.listAccounts({ limit: 0 }), "invalidRequest");
    await expectConnectorError(connector.listAccounts({ limit: 5000 }), "invalidRequest");
  });

  it("gets an account, and says so in words when it does not exist", async () => {
    const { connector } = h();
    const [first] = (await connector.listAccounts({ limit: 1 })).items;
    if (!first) throw new Error("no accounts");
    const account = await connector.getAccount(first.login);
    expect(account.login).toBe(first.login);
    expect(account.balance).toBe(first.balance);
    const error = await expectConnectorError(connector.getAccount("999999999"), "notFound");
    expect(error.message).toContain("999999999");
  });

  it("creates an account without ever reading the password back", async () => {
    const harness = h();
    const { connector } = harness;
    const stream = collect(connector.subscribe());
    const [group] = await connector.listGroups();
    if (!group) throw new Error("no groups");
    const created = await connector.createAccount({
      group: group.name,
      name: "Nora Newcomer",
      email: "nora@example.com",
      country: "Cyprus",
      leverage: 200,
      password: "Secret123",
      investorPassword: "Watch1234",
    });
    expect(created).toMatchObject({ group: group.name, name: "Nora Newcomer", email: "nora@example.com", leverage: 200, balance: 0, enabled: true });
    expect(await connector.getAccount(created.login)).toMatchObject({ login: created.login, name: "Nora Newcomer" });
    expect(JSON.stringify(created)).not.toMatch(/Secret123|Watch1234/);
    await settle(harness);
    await stream.stop();
    expect(stream.events.some((e: TradeEvent) => e.type === "accountChanged" && e.login === created.login)).toBe(true);
    expect(JSON.stringify(stream.events)).not.toMatch(/Secret123|Watch1234/);
  });

  it("refuses a new account with an unknown group, a weak password or absurd leverage", async () => {
    const { connector } = h();
    const [group] = await connector.listGroups();
    if (!group) throw new Error("no groups");
    await expectConnectorError(connector.createAccount({ group: "no-such-group", name: "X", password: "Secret123" }), "notFound");
    await expectConnectorError(connector.createAccount({ group: group.name, name: "X", password: "short" }), "invalidRequest");
    await expectConnectorError(connector.createAccount({ group: group.name, name: "X", password: "Secret123", leverage: 0 }), "invalidRequest");
  });

  it("changes group, leverage and rights, and resets passwords", async () => {
    const harness = h();
    const { connector } = harness;
    const groups = await connector.listGroups();
    const [from, to] = groups.filter((g) => g.currency === groups[0]?.currency);
    if (!from || !to) throw new Error("need two groups in one currency");
    const account = await connector.createAccount({ group: from.name, name: "Mover", password: "Secret123" });
    const changed = await connector.updateAccount(account.login, { group: to.name, leverage: 300, readOnly: true, comment: "moved" });
    expect(changed).toMatchObject({ group: to.name, leverage: 300, readOnly: true, comment: "moved" });
    expect(await connector.getAccount(account.login)).toMatchObject({ group: to.name, leverage: 300, readOnly: true });
    expect((await connector.updateAccount(account.login, { readOnly: false, enabled: false })).enabled).toBe(false);
    await connector.resetPassword(account.login, "Another123");
    await connector.resetPassword(account.login, "Investor123", "investor");
    await expectConnectorError(connector.resetPassword(account.login, "weak"), "invalidRequest");
    await expectConnectorError(connector.updateAccount(account.login, { group: "no-such-group" }), "notFound");
    await expectConnectorError(connector.updateAccount(account.login, { leverage: -5 }), "invalidRequest");
    await expectConnectorError(connector.updateAccount("999999999", { leverage: 100 }), "notFound");
  });

  it("lists groups, and symbols of every class with digits, contract sizes and sessions", async () => {
    const { connector } = h();
    const groups = await connector.listGroups();
    expect(groups.length).toBeGreaterThan(1);
    for (const g of groups) expect(g.marginCall).toBeGreaterThan(g.stopOut);
    const symbols = await connector.listSymbols();
    expect(new Set(symbols.map((s) => s.class))).toEqual(new Set(["forex", "metal", "index", "crypto"]));
    const eurusd = symbols.find((s) => s.name === "EURUSD");
    expect(eurusd).toMatchObject({ digits: 5, contractSize: 100_000, baseCurrency: "EUR", profitCurrency: "USD" });
    expect(symbols.find((s) => s.name === "XAUUSD")).toMatchObject({ class: "metal", contractSize: 100 });
    for (const s of symbols) {
      expect(s.sessions.length).toBeGreaterThan(0);
      expect(s.volumeMin).toBeGreaterThan(0);
      expect(s.volumeStep).toBeGreaterThan(0);
    }
  });

  it("quotes bid below ask, at the symbol's digits", async () => {
    const { connector } = h();
    const symbols = new Map((await connector.listSymbols()).map((s) => [s.name, s]));
    const quotes = await connector.getQuotes();
    expect(quotes.length).toBe(symbols.size);
    for (const q of quotes) {
      const digits = symbols.get(q.symbol)?.digits ?? 0;
      expect(q.bid).toBeLessThan(q.ask);
      expect(Number(q.bid.toFixed(digits))).toBe(q.bid);
      expect(Number(q.ask.toFixed(digits))).toBe(q.ask);
    }
    expect((await connector.getQuotes(["EURUSD"])).map((q) => q.symbol)).toEqual(["EURUSD"]);
    await expectConnectorError(connector.getQuotes(["NOPE"]), "notFound");
  });
}
