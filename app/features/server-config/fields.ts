/**
 * The fields the editors show and edit, in the platform's units (volumes in lots, money in the
 * group's currency, levels in percent or money as the group says), and which a platform cannot
 * take (core/trading/configRules.ts): those are shown, not editable.
 */
import { UNWRITABLE_GROUP_FIELDS, UNWRITABLE_SYMBOL_FIELDS } from "@core/trading/configRules";
import type { Group } from "@core/trading/group";
import type { TradePlatformType } from "@core/trading/platform";
import type { TradeSymbol } from "@core/trading/symbol";

export type FieldType = "text" | "number" | "boolean" | "lots" | "cents" | "level" | "choice" | "leverage" | "sessions";
export interface FieldDef {
  key: string;
  label: string;
  type: FieldType;
  choices?: readonly string[];
}

export const GROUP_FIELDS: readonly FieldDef[] = [
  { key: "currency", label: "Currency", type: "text" },
  { key: "defaultLeverage", label: "Default leverage (1:N)", type: "number" },
  { key: "marginLevelMode", label: "Margin levels in", type: "choice", choices: ["percent", "money"] },
  { key: "marginCall", label: "Margin call level", type: "level" },
  { key: "stopOut", label: "Stop-out level", type: "level" },
  { key: "marginMode", label: "Margin mode", type: "choice", choices: ["hedging", "netting"] },
  { key: "hedgingProhibited", label: "Hedging prohibited", type: "boolean" },
  { key: "fifoClose", label: "FIFO close", type: "boolean" },
  { key: "maxPositions", label: "Maximum open positions (0: no limit)", type: "number" },
  { key: "symbols", label: "Allowed symbols (masks)", type: "text" },
  { key: "commissionPerLot", label: "Commission per lot", type: "cents" },
];

export const SYMBOL_FIELDS: readonly FieldDef[] = [
  { key: "description", label: "Description", type: "text" },
  { key: "class", label: "Class", type: "choice", choices: ["forex", "metal", "index", "crypto"] },
  { key: "path", label: "Symbol group", type: "text" },
  { key: "digits", label: "Digits", type: "number" },
  { key: "contractSize", label: "Contract size (units per lot)", type: "number" },
  { key: "baseCurrency", label: "Base currency", type: "text" },
  { key: "profitCurrency", label: "Profit currency", type: "text" },
  { key: "executionMode", label: "Execution mode", type: "choice", choices: ["request", "instant", "market"] },
  { key: "tradeMode", label: "Trade mode", type: "choice", choices: ["full", "closeOnly", "disabled"] },
  { key: "spread", label: "Spread (points)", type: "number" },
  { key: "spreadBalance", label: "Spread balance (points)", type: "number" },
  { key: "stopsLevel", label: "Stops level (points)", type: "number" },
  { key: "freezeLevel", label: "Freeze level (points)", type: "number" },
  { key: "swapLong", label: "Swap long", type: "number" },
  { key: "swapShort", label: "Swap short", type: "number" },
  { key: "volumeMin", label: "Minimum volume (lots)", type: "lots" },
  { key: "volumeMax", label: "Maximum volume (lots)", type: "lots" },
  { key: "volumeStep", label: "Volume step (lots)", type: "lots" },
  { key: "maxLeverage", label: "Maximum leverage (empty: none)", type: "leverage" },
  { key: "marginInitial", label: "Initial margin per lot", type: "number" },
  { key: "marginMaintenance", label: "Maintenance margin per lot", type: "number" },
  { key: "marginHedged", label: "Hedged margin per lot", type: "number" },
  { key: "sessions", label: "Sessions (day from-to, minutes)", type: "sessions" },
];

export function fieldsOf(kind: "group" | "symbol"): readonly FieldDef[] {
  return kind === "group" ? GROUP_FIELDS : SYMBOL_FIELDS;
}

/** Why the platform cannot take a field, or undefined when it can. */
export function unwritable(platform: TradePlatformType, kind: "group" | "symbol", key: string): string | undefined {
  const table = (kind === "group" ? UNWRITABLE_GROUP_FIELDS[platform] : UNWRITABLE_SYMBOL_FIELDS[platform]) as Record<string, string | undefined>;
  return table[key];
}

const VOLUME_PER_LOT = 10_000;

/** A value as the form shows it (text), in the platform's units. */
export function toText(field: FieldDef, value: unknown, object?: Partial<Group>): string {
  if (value === null || value === undefined) return "";
  switch (field.type) {
    case "lots":
      return String((value as number) / VOLUME_PER_LOT);
    case "cents":
      return ((value as number) / 100).toFixed(2);
    case "level":
      return object?.marginLevelMode === "money" ? ((value as number) / 100).toFixed(2) : `${value as number}`;
    case "boolean":
      return value ? "yes" : "no";
    case "sessions":
      return (value as TradeSymbol["sessions"]).map((s) => `${s.day} ${s.from}-${s.to}`).join(", ");
    default:
      if (typeof value === "string") return value;
      if (typeof value === "number" || typeof value === "boolean") return `${value}`;
      return JSON.stringify(value);
  }
}

/** The text typed back into the model's value; `undefined` where it cannot be read (the form says so). */
export function fromText(field: FieldDef, text: string, object?: Partial<Group>): unknown {
  const t = text.trim();
  const num = (s: string) => (s === "" || Number.isNaN(Number(s)) ? undefined : Number(s));
  switch (field.type) {
    case "text":
    case "choice":
      return text;
    case "boolean":
      return t === "yes" ? true : t === "no" ? false : undefined;
    case "lots": {
      const n = num(t);
      return n === undefined ? undefined : Math.round(n * VOLUME_PER_LOT);
    }
    case "cents": {
      const n = num(t);
      return n === undefined ? undefined : Math.round(n * 100);
    }
    case "level": {
      const n = num(t);
      return n === undefined ? undefined : object?.marginLevelMode === "money" ? Math.round(n * 100) : n;
    }
    case "leverage":
      return t === "" ? null : num(t);
    case "sessions": {
      if (t === "") return [];
      const sessions = t.split(",").map((part) => /^\s*(\d+)\s+(\d+)\s*-\s*(\d+)\s*$/.exec(part));
      if (sessions.some((m) => !m)) return undefined;
      return sessions.map((m) => ({ day: Number(m?.[1]), from: Number(m?.[2]), to: Number(m?.[3]) }));
    }
    default:
      return num(t);
  }
}
