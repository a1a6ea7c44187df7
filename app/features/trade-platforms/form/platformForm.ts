import { z } from "zod";
import { TRADE_PLATFORM_TYPES, type TradePlatformType } from "@core/trading/platform";
import type { ConnectionInput, ConnectionKind, NewPlatform, PlatformDetail } from "../platformApi";

/**
 * The connect/edit form: its values as typed, and the one zod schema that checks them and turns
 * them into the API's body. The API checks again and stays the judge; this only saves a round
 * trip and puts each message next to its field.
 */
export interface PlatformFormValues {
  type: TradePlatformType;
  name: string;
  timeZone: string;
  /** A simulated server, or the platform's real protocol (which one follows from the type). */
  source: "simulated" | "server";
  accounts: string;
  tradeRate: string;
  seed: string;
  address: string;
  login: string;
  password: string;
  apiUrl: string;
  apiKey: string;
}

export type PlatformFormField = keyof PlatformFormValues;
export type PlatformFormErrors = Partial<Record<PlatformFormField, string>>;

// The API's own limits (core/schemas/platform.ts), so the form and the API never disagree.
export {
  PLATFORM_NAME_MAX as NAME_MAX,
  SIMULATED_ACCOUNTS_DEFAULT,
  SIMULATED_ACCOUNTS_MAX,
  SIMULATED_TRADE_RATE_DEFAULT,
  SIMULATED_TRADE_RATE_MAX,
  SIMULATED_SEED_MAX as SEED_MAX,
} from "@core/schemas/platform";
import {
  PLATFORM_NAME_MAX as NAME_MAX,
  SIMULATED_ACCOUNTS_DEFAULT,
  SIMULATED_ACCOUNTS_MAX,
  SIMULATED_TRADE_RATE_DEFAULT,
  SIMULATED_TRADE_RATE_MAX,
  SIMULATED_SEED_MAX as SEED_MAX,
} from "@core/schemas/platform";

/** The real connection each platform type speaks. */
export const SERVER_KIND: Record<TradePlatformType, Exclude<ConnectionKind, "simulated">> = {
  MT5: "mt5WebApi",
  MT4: "mt4Gateway",
  MatchTrader: "matchTraderApi",
};

export const SERVER_KIND_LABELS: Record<Exclude<ConnectionKind, "simulated">, string> = {
  mt5WebApi: "MetaTrader 5 Web API",
  mt4Gateway: "MetaTrader 4 manager gateway",
  matchTraderApi: "Match-Trader Broker API",
};

export function emptyPlatformForm(type: TradePlatformType = "MT5"): PlatformFormValues {
  return {
    type,
    name: "",
    timeZone: "UTC",
    source: "simulated",
    accounts: String(SIMULATED_ACCOUNTS_DEFAULT),
    tradeRate: String(SIMULATED_TRADE_RATE_DEFAULT),
    seed: "",
    address: "",
    login: "",
    password: "",
    apiUrl: "",
    apiKey: "",
  };
}

/** A saved platform as form values; secrets start empty (the API never sends them back). */
export function platformFormFrom(p: PlatformDetail): PlatformFormValues {
  const c = p.connection;
  return {
    ...emptyPlatformForm(p.type),
    name: p.name,
    timeZone: p.timeZone,
    source: c.kind === "simulated" ? "simulated" : "server",
    accounts: c.accounts !== undefined ? String(c.accounts) : String(SIMULATED_ACCOUNTS_DEFAULT),
    tradeRate: c.tradeRate !== undefined ? String(c.tradeRate) : String(SIMULATED_TRADE_RATE_DEFAULT),
    seed: c.seed !== undefined ? String(c.seed) : "",
    address: c.address ?? "",
    login: c.login ?? "",
    apiUrl: c.apiUrl ?? "",
  };
}

const HOST_PORT = /^(?:\[[0-9a-fA-F:.]+\]|[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?):(\d{1,5})$/;

function isValidTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat("en", { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

function isHttpUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return url.protocol === "https:" || url.protocol === "http:";
  } catch {
    return false;
  }
}

/**
 * `secretStored`: editing a platform whose connection already has a password or key, so an
 * empty secret field means "unchanged".
 */
export function platformFormSchema({ secretStored = false }: { secretStored?: boolean } = {}) {
  return z
    .object({
      type: z.enum(TRADE_PLATFORM_TYPES),
      name: z.string(),
      timeZone: z.string(),
      source: z.enum(["simulated", "server"]),
      accounts: z.string(),
      tradeRate: z.string(),
      seed: z.string(),
      address: z.string(),
      login: z.string(),
      password: z.string(),
      apiUrl: z.string(),
      apiKey: z.string(),
    })
    .superRefine((v, ctx) => {
      const issue = (path: PlatformFormField, message: string) => ctx.addIssue({ code: "custom", path: [path], message });
      const name = v.name.trim();
      if (!name) issue("name", "Give the platform a name, e.g. “MT5 Live”.");
      else if (name.length > NAME_MAX) issue("name", `Use at most ${NAME_MAX} characters.`);
      // eslint-disable-next-line no-control-regex -- control characters are what we refuse
      else if (/[\u0000-\u001f\u007f]/.test(name)) issue("name", "Remove the control characters.");
      if (!isValidTimeZone(v.timeZone)) issue("timeZone", "Choose the server's time zone.");
      if (v.source === "simulated") {
        const accounts = Number(v.accounts);
        if (!/^\d+$/.test(v.accounts.trim()) || accounts > SIMULATED_ACCOUNTS_MAX)
          issue("accounts", `A whole number from 0 to ${SIMULATED_ACCOUNTS_MAX.toLocaleString("en")}.`);
        const rate = Number(v.tradeRate);
        if (!v.tradeRate.trim() || !Number.isFinite(rate) || rate < 0 || rate > SIMULATED_TRADE_RATE_MAX)
          issue("tradeRate", `Trades per second, from 0 to ${SIMULATED_TRADE_RATE_MAX.toLocaleString("en")}.`);
        if (v.seed.trim() && (!/^\d{1,10}$/.test(v.seed.trim()) || Number(v.seed) > SEED_MAX)) issue("seed", "A whole number, or empty for a random one.");
        return;
      }
      const needSecret = !secretStored;
      if (v.type === "MatchTrader") {
        if (!isHttpUrl(v.apiUrl.trim())) issue("apiUrl", "The Broker API's address, e.g. https://broker-api.example.com.");
        if (needSecret && !v.apiKey.trim()) issue("apiKey", "Paste the API key the Match-Trader back office issued.");
        return;
      }
      const port = HOST_PORT.exec(v.address.trim())?.[1];
      if (!port || Number(port) < 1 || Number(port) > 65535) issue("address", "Host and port, e.g. mt5.example.com:443.");
      if (!v.login.trim() || v.login.trim().length > 64) issue("login", "The manager's login.");
      if (needSecret && !v.password) issue("password", "The manager's password.");
    });
}

/** The connection part of the API body; secrets only when typed. */
export function connectionFrom(v: PlatformFormValues): ConnectionInput {
  if (v.source === "simulated") {
    return {
      kind: "simulated",
      accounts: Number(v.accounts),
      tradeRate: Number(v.tradeRate),
      ...(v.seed.trim() ? { seed: Number(v.seed) } : {}),
    };
  }
  if (v.type === "MatchTrader") return { kind: "matchTraderApi", apiUrl: v.apiUrl.trim(), ...(v.apiKey.trim() ? { apiKey: v.apiKey.trim() } : {}) };
  return { kind: v.type === "MT4" ? "mt4Gateway" : "mt5WebApi", address: v.address.trim(), login: v.login.trim(), ...(v.password ? { password: v.password } : {}) };
}

export function newPlatformFrom(v: PlatformFormValues): NewPlatform {
  return { type: v.type, name: v.name.trim(), timeZone: v.timeZone, connection: connectionFrom(v) };
}

/** Field messages from a failed check, the first per field. */
export function formErrors(values: PlatformFormValues, options?: { secretStored?: boolean }): PlatformFormErrors {
  const result = platformFormSchema(options).safeParse(values);
  if (result.success) return {};
  const errors: PlatformFormErrors = {};
  for (const issue of result.error.issues) {
    const field = issue.path[0] as PlatformFormField | undefined;
    if (field && !errors[field]) errors[field] = issue.message;
  }
  return errors;
}

/** Only the connection fields matter to "Test connection". */
export const CONNECTION_FIELDS: readonly PlatformFormField[] = ["source", "accounts", "tradeRate", "seed", "address", "login", "password", "apiUrl", "apiKey"];

export function connectionErrors(errors: PlatformFormErrors): PlatformFormErrors {
  return Object.fromEntries(Object.entries(errors).filter(([field]) => CONNECTION_FIELDS.includes(field as PlatformFormField)));
}
