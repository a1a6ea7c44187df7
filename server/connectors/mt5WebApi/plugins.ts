/**
 * One idea: what a server that does not know the plugin commands (`/api/plugin/*`, docs/connectors.md
 * "Plugins") answers is a platform without that feature, not a missing plugin: `13 Not found` on
 * the list becomes a refusal that says so (the API's 422, not a 404 that reads as "no such platform").
 */
import { connectorErrors } from "../errors.ts";
import type { Mt5Native } from "../mt5/native.ts";
import { NativeError } from "../wire/wire.ts";
import { retcodeNumber } from "./format.ts";

const NOT_FOUND = 13;

export async function pluginList(read: Promise<Mt5Native["plugin"][]>): Promise<Mt5Native["plugin"][]> {
  try {
    return await read;
  } catch (error) {
    if (error instanceof NativeError && retcodeNumber((error.native as Mt5Native["error"]).retcode) === NOT_FOUND)
      throw connectorErrors.rejected("other", "This MT5 server's Web API does not offer its plugins' configuration (plugin/total answered 13 Not found).");
    throw error;
  }
}
