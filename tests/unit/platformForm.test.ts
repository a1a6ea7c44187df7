// @vitest-environment node
/**
 * The connect/edit form checks its values with the API's own schemas (core/schemas/platform.ts):
 * one contract, so the form never accepts what the API refuses, nor says it in other words.
 */
import { describe, expect, it } from "vitest";
import { CreatePlatformSchema } from "@core/schemas/platform";
import { emptyPlatformForm, formErrors, newPlatformFrom, type PlatformFormValues } from "~/features/trade-platforms/form/platformForm";

const simulated = (over: Partial<PlatformFormValues> = {}) => ({ ...emptyPlatformForm("MT5"), name: "Demo", ...over });

/** What the API says about the same body, without the field path it puts in front. */
function apiMessage(body: unknown, path: string): string | undefined {
  const result = CreatePlatformSchema.safeParse(body);
  return result.success ? undefined : result.error.issues.find((i) => i.path.join(".") === path)?.message;
}

describe("the platform form's checks are the API's", () => {
  it("gives the API's message for the same mistake", () => {
    const long = "x".repeat(101);
    expect(formErrors(simulated({ name: long })).name).toBe(
      apiMessage({ type: "MT5", name: long, timeZone: "UTC", connection: { kind: "simulated" } }, "name"),
    );
    expect(formErrors(simulated({ accounts: "100001" })).accounts).toBe("A simulated server holds at most 100000 accounts");
    expect(formErrors(simulated({ tradeRate: "-1" })).tradeRate).toBe("tradeRate (trading actions per second) cannot be negative");
    expect(formErrors(simulated({ timeZone: "+02:00" })).timeZone).toMatch(/IANA time zone name/);
  });

  it("refuses what is not a number, or nothing at all, where a number is needed", () => {
    expect(formErrors(simulated({ accounts: "" })).accounts).toBeDefined();
    expect(formErrors(simulated({ accounts: "12 accounts" })).accounts).toBeDefined();
    expect(formErrors(simulated({ accounts: "2.5" })).accounts).toBe("accounts must be a whole number");
    expect(formErrors(simulated({ tradeRate: " " })).tradeRate).toBeDefined();
    expect(formErrors(simulated({ seed: "-4" })).seed).toBe("seed cannot be negative");
    expect(formErrors(simulated({ seed: "" }))).toEqual({});
  });

  it("asks a real server's address, port, login and secret as the API does", () => {
    const server = { ...emptyPlatformForm("MT4"), name: "Live", source: "server" as const, login: "1000", password: "pw" };
    expect(formErrors({ ...server, address: "mt4.example.com:70000" }).address).toBe("The port must be from 1 to 65535");
    expect(formErrors({ ...server, address: "mt4.example.com" }).address).toBe("address must be host:port, such as mt5.example.com:443");
    expect(formErrors({ ...server, address: "mt4.example.com:443", password: "" }).password).toBe("Enter the manager password");
    expect(formErrors({ ...server, address: "mt4.example.com:443", password: "" }, { secretStored: true })).toEqual({});
    expect(newPlatformFrom({ ...server, address: " mt4.example.com:443 " }).connection).toEqual({
      kind: "mt4Gateway",
      address: "mt4.example.com:443",
      login: "1000",
      password: "pw",
    });
    const match = { ...emptyPlatformForm("MatchTrader"), name: "MTR", source: "server" as const, apiUrl: "https://api.example.com" };
    expect(formErrors(match).apiKey).toBe("Enter the API key");
  });

  it("refuses control characters in a name, as the API does", () => {
    expect(formErrors(simulated({ name: "Live\u0007" })).name).toBe("A platform name cannot hold control characters");
  });

  it("sends an MT5 server's CA certificate when given, checked as the API checks it", () => {
    const mt5 = { ...emptyPlatformForm("MT5"), name: "Live", source: "server" as const, address: "mt5.example.com:443", login: "1000", password: "pw" };
    const pem = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----";
    expect(newPlatformFrom({ ...mt5, caCertificate: `  ${pem}\n` }).connection).toEqual({
      kind: "mt5WebApi",
      address: "mt5.example.com:443",
      login: "1000",
      password: "pw",
      caCertificate: pem,
    });
    expect(newPlatformFrom(mt5).connection).not.toHaveProperty("caCertificate");
    expect(formErrors({ ...mt5, caCertificate: "not a certificate" }).caCertificate).toMatch(/PEM form/);
  });

  it("sends an MT4 gateway's CA certificate when given, in the same shape", () => {
    const mt4 = { ...emptyPlatformForm("MT4"), name: "Live", source: "server" as const, address: "mt4.example.com:443", login: "1000", password: "pw" };
    const pem = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----";
    expect(newPlatformFrom({ ...mt4, caCertificate: pem }).connection).toEqual({
      kind: "mt4Gateway",
      address: "mt4.example.com:443",
      login: "1000",
      password: "pw",
      caCertificate: pem,
    });
    expect(formErrors({ ...mt4, caCertificate: "not a certificate" }).caCertificate).toMatch(/PEM form/);
  });
});
