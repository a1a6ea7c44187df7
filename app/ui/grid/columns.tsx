import type { ColDef, ValueFormatterParams } from "ag-grid-community";
import { formatDateTime, formatInteger, formatMoney, formatPercent } from "./format";

/**
 * Column helpers, so every table shows the same kind of figure the same way: numbers right
 * aligned in tabular digits, money with thousands separators and two decimals, times in one format.
 */
type Col<T> = ColDef<T> & { field: NonNullable<ColDef<T>["field"]> };

const numeric = "text-right tabular-nums";

export function textColumn<T>(def: Col<T>): ColDef<T> {
  return { minWidth: 90, ...def };
}

export function moneyColumn<T>(def: Col<T>): ColDef<T> {
  return {
    width: 130,
    type: "rightAligned",
    cellClass: numeric,
    valueFormatter: (p: ValueFormatterParams<T>) => formatMoney(p.value as string | number | null),
    ...def,
  };
}

export function percentColumn<T>(def: Col<T>): ColDef<T> {
  return {
    width: 130,
    type: "rightAligned",
    cellClass: numeric,
    valueFormatter: (p: ValueFormatterParams<T>) => formatPercent(p.value as string | number | null),
    ...def,
  };
}

export function integerColumn<T>(def: Col<T>): ColDef<T> {
  return {
    width: 110,
    type: "rightAligned",
    cellClass: numeric,
    valueFormatter: (p: ValueFormatterParams<T>) => formatInteger(p.value as number | null),
    ...def,
  };
}

export function dateTimeColumn<T>(def: Col<T>): ColDef<T> {
  // Wide enough for "11/27/2026, 11:49:34 PM" (en-US, the longest of the usual formats): at 175 px the seconds were cut off.
  return { width: 210, cellClass: "tabular-nums", valueFormatter: (p: ValueFormatterParams<T>) => formatDateTime(p.value as string | number | null), ...def };
}
