export * from "./schema.ts";
export * from "./active.ts";
export * from "./markup.ts";
