/**
 * One idea: the MT5 Web API's plugin configuration commands, served as the vendor serves other
 * configuration (groups, symbols): `plugin/total`, `plugin/next?index=`, `plugin/get?name=`, and
 * `plugin/add` with an IMTConPlugin JSON body, which replaces the instance of that name. This
 * server runs only the plugins its simulated server has: a new instance (an unknown name) is
 * refused 13 Not found. docs/connectors.md, "Plugins".
 */
import { MT5_RETCODE, type Mt5Native } from "../../connectors/mt5/native.ts";
import type { Mt5PluginUpdate } from "../../connectors/mt5/plugins.ts";
import type { WireSession } from "../../connectors/wire/wire.ts";
import { isRecord } from "../common/https.ts";
import { at, CommandError, text } from "./params.ts";

/** The answer to a plugin command, or null when `path` is not one. */
export async function pluginCommand(
  path: string,
  params: Record<string, unknown>,
  body: unknown,
  session: WireSession<Mt5Native>,
): Promise<{ answer: unknown } | null> {
  switch (path) {
    case "/api/plugin/total":
      return { answer: { Total: (await session.listPlugins()).length } };
    case "/api/plugin/next":
      return { answer: at(await session.listPlugins(), params.index) };
    case "/api/plugin/get": {
      const plugin = (await session.listPlugins()).find((p) => p.Name === text(params.name));
      if (!plugin) throw new CommandError(MT5_RETCODE.notFound, "No plugin instance of this name.");
      return { answer: plugin };
    }
    case "/api/plugin/add":
      return { answer: await session.updatePlugin(pluginBody(body)) };
    default:
      return null;
  }
}

/** IMTConPlugin as JSON: Name, Server, Module, Enable ("0"/"1"), Flags, Parameters [{Name, Value}]. */
function pluginBody(body: unknown): Mt5PluginUpdate {
  const invalid = () => new CommandError(MT5_RETCODE.params, "The body is an IMTConPlugin: Name, Module, Enable, Parameters [{Name, Value}].");
  if (!isRecord(body) || typeof body.Name !== "string" || body.Name === "" || typeof body.Module !== "string") throw invalid();
  const enable = text(body.Enable);
  if (enable !== "0" && enable !== "1") throw invalid();
  const parameters = body.Parameters ?? [];
  if (!Array.isArray(parameters)) throw invalid();
  return {
    Name: body.Name,
    Server: text(body.Server),
    Module: body.Module,
    Enable: enable,
    Flags: text(body.Flags) || "0",
    Parameters: parameters.map((p: unknown) => {
      if (!isRecord(p) || typeof p.Name !== "string" || typeof p.Value !== "string") throw invalid();
      return { Name: p.Name, Value: p.Value };
    }),
  };
}
