import type { Config } from "./config.ts";
import type { Database } from "./db/client.ts";

/** What every part of the server is built from; made once in main.ts (or by a test). */
export interface AppContext {
  config: Config;
  database: Database;
}
