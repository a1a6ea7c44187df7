/** The Trades Copier's copy rules (docs/trades-copier.md): pure, shared by the engine and the preview. */
export * from "./types.ts";
export * from "./decide.ts";
export * from "./direction.ts";
export * from "./requestId.ts";
export * from "./risk.ts";
export * from "./stops.ts";
export * from "./symbols.ts";
export * from "./volume.ts";
export * from "./preview.ts";
export * from "./history.ts";
export * from "./chain.ts";
export * from "./profit.ts";
