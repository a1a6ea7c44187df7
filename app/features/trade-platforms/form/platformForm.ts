import { ConnectionChangeSchema, CreatePlatformSchema, SIMULATED_ACCOUNTS_DEFAULT, SIMULATED_TRADE_RATE_DEFAULT } from "@core/schemas/platform";
import type { TradePlatformType } from "@core/trading/platform";
import type { ConnectionInput, ConnectionKind, NewPlatform, PlatformDetail } from "../platformApi";

/**
 * The connect/edit form: its values as typed, checked with the API's own schemas and turned into
 * the API's body. The API checks again and stays the judge; this only saves a round trip and puts
 * each message next to its field.
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
  /** MT5 Web API, MT4 gateway and Match-Trader: the PEM of the CA that signed the server's certificate; empty for the system's CAs. */
  caCertificate: string;
  apiUrl: string;
  apiKey: string;
  /** Match-Trader: host:port of the live feed (gRPC); empty for the API URL's host and port. */
  grpcAddress: string;
  quotesGroup: string;
}

export type PlatformFormField = keyof PlatformFormValues;
export type PlatformFormErrors = Partial<Record<PlatformFormField, string>>;

// The API's own limits (core/schemas/platform.ts), for the fields' hints.
export { PLATFORM_NAME_MAX as NAME_MAX, SIMULATED_ACCOUNTS_MAX } from "@core/schemas/platform";

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
    caCertificate: "",
    apiUrl: "",
    apiKey: "",
    grpcAddress: "",
    quotesGroup: "",
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
    caCertificate: c.caCertificate ?? "",
    apiUrl: c.apiUrl ?? "",
    grpcAddress: c.grpcAddress ?? "",
    quotesGroup: c.quotesGroup ?? "",
  };
}

/** A number field as typed: empty or not a number stays "not a number", for the schema to refuse. */
function numberOf(text: string): number {
  const t = text.trim();
  return t === "" ? Number.NaN : Number(t);
}

/** The connection part of the API body; secrets only when typed. */
export function connectionFrom(v: PlatformFormValues): ConnectionInput {
  if (v.source === "simulated") {
    return {
      kind: "simulated",
      accounts: numberOf(v.accounts),
      tradeRate: numberOf(v.tradeRate),
      ...(v.seed.trim() ? { seed: numberOf(v.seed) } : {}),
    };
  }
  if (v.type === "MatchTrader")
    return {
      kind: "matchTraderApi",
      apiUrl: v.apiUrl.trim(),
      ...(v.grpcAddress.trim() ? { grpcAddress: v.grpcAddress.trim() } : {}),
      ...(v.quotesGroup.trim() ? { quotesGroup: v.quotesGroup.trim() } : {}),
      ...(v.apiKey.trim() ? { apiKey: v.apiKey.trim() } : {}),
      ...(v.caCertificate.trim() ? { caCertificate: v.caCertificate.trim() } : {}),
    };
  const password = v.password ? { password: v.password } : {};
  const server = { address: v.address.trim(), login: v.login.trim(), ...password };
  const ca = v.caCertificate.trim() ? { caCertificate: v.caCertificate.trim() } : {};
  if (v.type === "MT4") return { kind: "mt4Gateway", ...server, ...ca };
  return { kind: "mt5WebApi", ...server, ...ca };
}

function bodyFrom(v: PlatformFormValues) {
  return { type: v.type, name: v.name, timeZone: v.timeZone, connection: connectionFrom(v) };
}

/**
 * The form is checked with the API's own schemas (core/schemas/platform.ts): the same rules and
 * the same messages, next to the field they concern. Editing a platform whose connection already
 * has a password or key (`secretStored`), an empty secret field means "unchanged".
 */
const EditedPlatformSchema = CreatePlatformSchema.extend({ connection: ConnectionChangeSchema });

/** The API body of a new platform; call it once `formErrors` found nothing (it throws otherwise). */
export function newPlatformFrom(v: PlatformFormValues): NewPlatform {
  return CreatePlatformSchema.parse(bodyFrom(v));
}

/** Field messages from a failed check, the first per field. */
export function formErrors(values: PlatformFormValues, options: { secretStored?: boolean } = {}): PlatformFormErrors {
  const schema = options.secretStored ? EditedPlatformSchema : CreatePlatformSchema;
  const result = schema.safeParse(bodyFrom(values));
  if (result.success) return {};
  const errors: PlatformFormErrors = {};
  for (const issue of result.error.issues) {
    // connection.accounts → accounts; a problem with the connection as a whole → its source.
    const [first, second] = issue.path;
    const field = (first === "connection" ? (typeof second === "string" ? second : "source") : first) as PlatformFormField | undefined;
    if (field && field in values && !errors[field]) errors[field] = issue.message;
  }
  return errors;
}

/** Only the connection fields matter to "Test connection". */
export const CONNECTION_FIELDS: readonly PlatformFormField[] = [
  "source",
  "accounts",
  "tradeRate",
  "seed",
  "address",
  "login",
  "password",
  "caCertificate",
  "apiUrl",
  "apiKey",
  "grpcAddress",
  "quotesGroup",
];

export function connectionErrors(errors: PlatformFormErrors): PlatformFormErrors {
  return Object.fromEntries(Object.entries(errors).filter(([field]) => CONNECTION_FIELDS.includes(field as PlatformFormField)));
}
