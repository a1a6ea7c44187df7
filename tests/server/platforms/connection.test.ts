/** Platform connections: time zones, kinds per type, what is stored, shown and handed to the connector. */
import { describe, expect, it } from "vitest";
import { connectorConfigOf, kindMismatch, publicConnection, splitConnection } from "../../../server/modules/tradePlatforms/runtime/connection.ts";
import { isTimeZone, normalizeTimeZone } from "../../../core/schemas/timeZone.ts";
import { formatServerTime, offsetMinutesAt } from "../../../server/modules/tradePlatforms/runtime/timeZone.ts";

describe("time zones", () => {
  it("accepts IANA names (fixing their case) and refuses offsets and inventions", () => {
    expect(normalizeTimeZone("Europe/London")).toBe("Europe/London");
    expect(normalizeTimeZone("europe/london")).toBe("Europe/London");
    expect(normalizeTimeZone("UTC")).toBe("UTC");
    expect(normalizeTimeZone("Etc/GMT-2")).toBe("Etc/GMT-2");
    for (const bad of ["", " ", "+02:00", "-0500", "2", "Mars/Olympus_Mons", "Europe/Londn"]) expect(isTimeZone(bad), bad).toBe(false);
  });

  it("knows a zone's offset at an instant (with daylight saving) and prints server time with it", () => {
    expect(offsetMinutesAt("Europe/Athens", Date.UTC(2024, 0, 10))).toBe(120);
    expect(offsetMinutesAt("Europe/Athens", Date.UTC(2024, 6, 10))).toBe(180);
    expect(offsetMinutesAt("America/New_York", Date.UTC(2024, 0, 10))).toBe(-300);
    expect(offsetMinutesAt("Asia/Kolkata")).toBe(330);
    expect(offsetMinutesAt("UTC")).toBe(0);
    expect(formatServerTime(Date.UTC(2024, 0, 10, 12), 120)).toBe("2024-01-10T14:00:00.000+02:00");
    expect(formatServerTime(Date.UTC(2024, 0, 10, 12), -330)).toBe("2024-01-10T06:30:00.000-05:30");
    expect(Date.parse(formatServerTime(Date.UTC(2024, 0, 10, 12), 345))).toBe(Date.UTC(2024, 0, 10, 12));
  });
});

describe("connections", () => {
  it("lets each type use its own real kind or a simulated server", () => {
    expect(kindMismatch("MT4", "mt4Gateway")).toBeNull();
    expect(kindMismatch("MT5", "simulated")).toBeNull();
    expect(kindMismatch("MatchTrader", "matchTraderApi")).toBeNull();
    expect(kindMismatch("MT5", "mt4Gateway")).toMatch(/MetaTrader 5 platform connects through the MT5 Web API/);
  });

  it("stores no secret in the clear, fills simulated defaults, and keeps a seed across changes", () => {
    const real = splitConnection({ kind: "mt5WebApi", address: "h:1", login: "1001", password: "pw" }, { seed: () => 9 });
    expect(real).toEqual({ stored: { kind: "mt5WebApi", address: "h:1", login: "1001" }, secret: "pw" });
    const api = splitConnection({ kind: "matchTraderApi", apiUrl: "https://x", apiKey: "k" }, { seed: () => 9 });
    expect(api).toEqual({ stored: { kind: "matchTraderApi", apiUrl: "https://x" }, secret: "k" });
    const sim = splitConnection({ kind: "simulated" }, { seed: () => 9 });
    expect(sim).toEqual({ stored: { kind: "simulated", accounts: 300, tradeRate: 3, seed: 9 }, secret: null });
    const changed = splitConnection(
      { kind: "simulated", tradeRate: 0 },
      { seed: () => 1, previous: { kind: "simulated", accounts: 50, tradeRate: 3, seed: 42 } },
    );
    expect(changed.stored).toEqual({ kind: "simulated", accounts: 50, tradeRate: 0, seed: 42 });
    const withManager = splitConnection({ kind: "simulated", login: "1000" }, { seed: () => 1 });
    expect(withManager.secret).toBeUndefined();
  });

  it("shows hasSecret, never a secret field", () => {
    const shown = publicConnection({ kind: "mt4Gateway", address: "h:1", login: "7" }, true);
    expect(shown).toEqual({ kind: "mt4Gateway", address: "h:1", login: "7", hasSecret: true });
    expect(Object.keys(publicConnection({ kind: "matchTraderApi", apiUrl: "https://x" }, true))).toEqual(["kind", "apiUrl", "hasSecret"]);
  });

  it("builds the simulated connector per platform (server key = platform id), and says why real kinds cannot connect yet", () => {
    const built = connectorConfigOf(
      { id: "p-1", type: "MT5", timeZone: "UTC", connection: { kind: "simulated", accounts: 10, tradeRate: 0, seed: 3, login: "1000" } },
      "Manager1",
    );
    expect(built).toEqual({
      config: {
        kind: "simulated",
        platform: "MT5",
        serverKey: "p-1",
        server: { seed: 3, accounts: 10, tradeRate: 0, timeZoneOffsetMinutes: 0 },
        credentials: { login: "1000", password: "Manager1" },
      },
    });
    expect(connectorConfigOf({ id: "p-2", type: "MT4", timeZone: "UTC", connection: { kind: "mt4Gateway", address: "h:1", login: "1" } }, "pw")).toEqual({
      config: { kind: "mt4Gateway", address: "h:1", credentials: { login: "1", password: "pw" } },
    });
    expect(connectorConfigOf({ id: "p-3", type: "MT4", timeZone: "UTC", connection: { kind: "mt4Gateway", address: "h:1", login: "1" } }, null)).toEqual({
      unavailable: "Enter the manager password for this connection.",
    });
  });

  it("keeps a Match-Trader platform's quotes group from the form to its connector (the quotes stream asks for that group's prices)", () => {
    const { stored } = splitConnection({ kind: "matchTraderApi", apiUrl: "https://x", apiKey: "k", quotesGroup: "real\\retail" }, { seed: () => 9 });
    expect(stored).toEqual({ kind: "matchTraderApi", apiUrl: "https://x", quotesGroup: "real\\retail" });
    expect(publicConnection(stored, true)).toEqual({ kind: "matchTraderApi", apiUrl: "https://x", quotesGroup: "real\\retail", hasSecret: true });
    const built = connectorConfigOf({ id: "p-2", type: "MatchTrader", timeZone: "UTC", connection: stored }, "k");
    expect(built).toMatchObject({ config: { kind: "matchTraderApi", quotesGroup: "real\\retail" } });
    // Without it, nothing is stored: the first offer's group.
    expect(splitConnection({ kind: "matchTraderApi", apiUrl: "https://x", apiKey: "k" }, { seed: () => 9 }).stored).not.toHaveProperty("quotesGroup");
  });
});
