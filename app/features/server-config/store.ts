/**
 * Staged changes (not sent until Apply), per platform: one per object (its fields against the
 * object as read, with that version) and one for the holiday list; refusals from the last Apply
 * kept beside them. A Zustand store so every tab, the forms and the Changes panel share it.
 */
import { create } from "zustand";
import type { Holiday } from "@core/trading/holiday";
import { canonicalConfig } from "@core/trading/configVersion";
import type { SentChange } from "./api";

export type Staged =
  | { kind: "group" | "symbol"; name: string; expected: string; base: Record<string, unknown>; patch: Record<string, unknown> }
  | { kind: "holidays"; name: null; expected: string; base: Holiday[]; holidays: Holiday[] };
export type Refusal = { status: "invalid" | "changed" | "failed"; message: string; current?: unknown; currentVersion?: string | null };

export const stagedKey = (kind: string, name: string | null) => `${kind}:${name ?? ""}`;
const same = (a: unknown, b: unknown) => canonicalConfig({ v: a }) === canonicalConfig({ v: b });

interface StagingState {
  /** Per platform id, per stagedKey. */
  staged: Record<string, Record<string, Staged>>;
  refusals: Record<string, Record<string, Refusal>>;
  /** Stage fields of an object read at `expected`; a field back at its read value is no change. */
  stageFields: (platformId: string, kind: "group" | "symbol", name: string, base: object, expected: string, fields: Record<string, unknown>) => void;
  stageHolidays: (platformId: string, base: Holiday[], expected: string, holidays: Holiday[]) => void;
  discard: (platformId: string, key: string) => void;
  settle: (platformId: string, applied: string[], refused: Record<string, Refusal>) => void;
}

export const useStaging = create<StagingState>()((set) => ({
  staged: {},
  refusals: {},
  stageFields: (platformId, kind, name, base, expected, fields) =>
    set((state) => {
      const key = stagedKey(kind, name);
      const platform = { ...state.staged[platformId] };
      const existing = platform[key];
      const read = base as Record<string, unknown>;
      // A change already staged on the object keeps the version it was read at.
      const kept = existing && existing.kind !== "holidays" && existing.expected === expected ? existing.patch : {};
      const patch: Record<string, unknown> = { ...kept };
      for (const [field, value] of Object.entries(fields)) {
        if (same(value, read[field])) delete patch[field];
        else patch[field] = value;
      }
      if (Object.keys(patch).length === 0) delete platform[key];
      else platform[key] = { kind, name, expected, base: read, patch };
      const refusals = { ...state.refusals[platformId] };
      delete refusals[key];
      return { staged: { ...state.staged, [platformId]: platform }, refusals: { ...state.refusals, [platformId]: refusals } };
    }),
  stageHolidays: (platformId, base, expected, holidays) =>
    set((state) => {
      const key = stagedKey("holidays", null);
      const platform = { ...state.staged[platformId] };
      if (same(base, holidays)) delete platform[key];
      else platform[key] = { kind: "holidays", name: null, expected, base, holidays };
      return { staged: { ...state.staged, [platformId]: platform } };
    }),
  discard: (platformId, key) =>
    set((state) => {
      const platform = { ...state.staged[platformId] };
      delete platform[key];
      const refusals = { ...state.refusals[platformId] };
      delete refusals[key];
      return { staged: { ...state.staged, [platformId]: platform }, refusals: { ...state.refusals, [platformId]: refusals } };
    }),
  settle: (platformId, applied, refused) =>
    set((state) => {
      const platform = { ...state.staged[platformId] };
      for (const key of applied) delete platform[key];
      return { staged: { ...state.staged, [platformId]: platform }, refusals: { ...state.refusals, [platformId]: refused } };
    }),
}));

/** What Apply sends for a staged change: exactly its diff, with the version it was read at. */
export function toSent(change: Staged): SentChange {
  if (change.kind === "holidays") return { kind: "holidays", expected: change.expected, holidays: change.holidays };
  return { kind: change.kind, name: change.name, expected: change.expected, patch: change.patch };
}

/** The diff a staged change shows: field, before, after. */
export function diffLines(change: Staged): { field: string; before: unknown; after: unknown }[] {
  if (change.kind === "holidays") {
    const lines: { field: string; before: unknown; after: unknown }[] = [];
    const describe = (h: Holiday) => `${h.date} ${h.symbols} ${h.from}-${h.to} ${h.enabled ? "on" : "off"} ${h.description}`;
    const before = change.base.map(describe);
    const after = change.holidays.map(describe);
    for (const line of before) if (!after.includes(line)) lines.push({ field: "holiday", before: line, after: "(removed)" });
    for (const line of after) if (!before.includes(line)) lines.push({ field: "holiday", before: "(none)", after: line });
    return lines;
  }
  return Object.entries(change.patch).map(([field, after]) => ({ field, before: change.base[field], after }));
}
