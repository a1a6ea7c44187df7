import type { Group } from "@core/trading/group";
import { fieldsOf, toText } from "./fields";

/** A field's value as the diff and the grids show it, in the platform's units. */
export function showValue(kind: "group" | "symbol" | "holidays", field: string, value: unknown, object?: unknown): string {
  if (kind !== "holidays") {
    const def = fieldsOf(kind).find((f) => f.key === field);
    if (def) return toText(def, value, object as Partial<Group> | undefined) || "(empty)";
  }
  if (value === null || value === undefined) return "(empty)";
  return typeof value === "string" ? value : JSON.stringify(value);
}

export function labelOf(kind: "group" | "symbol" | "holidays", field: string): string {
  if (kind === "holidays") return "Holiday";
  return fieldsOf(kind).find((f) => f.key === field)?.label ?? field;
}
