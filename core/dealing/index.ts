export * from "./schema.ts";
export * from "./active.ts";
export * from "./markup.ts";
export * from "./serverWrite.ts";
