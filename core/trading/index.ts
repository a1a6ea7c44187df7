/** The normalized trading model: one vocabulary for MT4, MT5 and Match-Trader. */
export * from "./platform.ts";
export * from "./money.ts";
export * from "./volume.ts";
export * from "./price.ts";
export * from "./mask.ts";
export * from "./native.ts";
export * from "./account.ts";
export * from "./group.ts";
export * from "./symbol.ts";
export * from "./position.ts";
export * from "./deal.ts";
export * from "./order.ts";
export * from "./balance.ts";
export * from "./journal.ts";
export * from "./events.ts";
export * from "./margin.ts";
export * from "./conversion.ts";
