/**
 * The plugins API (GET/PUT /api/tradePlatforms/{id}/plugins…): a server's plugins in Toolbox's
 * one model (core/trading/plugin.ts) and the change a manager makes to one. docs/connectors.md,
 * "Plugins".
 */
import { z } from "zod";
import { PLUGIN_PARAMETER_NAME_MAX, PLUGIN_PARAMETER_VALUE_MAX, PLUGIN_PARAMETERS_MAX } from "../trading/plugin.ts";

export const PluginParameterSchema = z.object({ name: z.string(), value: z.string() });

export const PluginSchema = z.object({
  id: z.string().meta({ description: "The plugin's id on the server: the MT4 file name without .dll, the MT5 instance name" }),
  file: z.string().meta({ description: "The file the server loads (MT4 plugin file, MT5 module)" }),
  name: z.string(),
  version: z.string(),
  enabled: z.boolean(),
  configurable: z.boolean().meta({ description: "Its parameters can be changed from Toolbox" }),
  state: z.enum(["running", "disabled"]),
  parameters: z.array(PluginParameterSchema),
});

export const PluginListSchema = z.object({
  /** The platform has server plugins (MT4, MT5); false on Match-Trader, with `message` saying why and no list. */
  supported: z.boolean(),
  message: z.string().nullable(),
  plugins: z.array(PluginSchema),
});

export const PluginParamsSchema = z.object({
  id: z.guid({ error: "The platform id must be a UUID" }),
  pluginId: z
    .string({ error: "The plugin id must be text" })
    .min(1, { error: "The plugin id must not be empty" })
    .max(256, { error: "The plugin id is at most 256 characters" })
    // eslint-disable-next-line no-control-regex -- control characters are what we refuse
    .regex(/^[^\u0000-\u001f\u007f/\\]*$/, { error: "The plugin id cannot contain control characters or slashes" }),
});

const ParameterBodySchema = z
  .object({
    name: z
      .string({ error: "A parameter's name must be text" })
      .min(1, { error: "A parameter needs a name" })
      .max(PLUGIN_PARAMETER_NAME_MAX, { error: `A parameter's name is at most ${PLUGIN_PARAMETER_NAME_MAX} characters` })
      .refine((n) => n === n.trim(), { error: "A parameter's name has no spaces around it" }),
    value: z
      .string({ error: "A parameter's value must be text" })
      .max(PLUGIN_PARAMETER_VALUE_MAX, { error: `A parameter's value is at most ${PLUGIN_PARAMETER_VALUE_MAX} characters` }),
  })
  .strict();

export const PluginUpdateBodySchema = z
  .object({
    enabled: z.boolean({ error: "enabled must be true or false" }).optional(),
    /** The whole ordered list: parameters left out are removed. */
    parameters: z
      .array(ParameterBodySchema, { error: "parameters must be a list of name/value pairs" })
      .max(PLUGIN_PARAMETERS_MAX, { error: `A plugin takes at most ${PLUGIN_PARAMETERS_MAX} parameters` })
      .refine((list) => new Set(list.map((p) => p.name)).size === list.length, { error: "Each parameter name appears once" })
      .optional(),
  })
  .strict()
  .refine((b) => b.enabled !== undefined || b.parameters !== undefined, { error: "Say what to change: enabled, parameters or both" });

export type PluginView = z.infer<typeof PluginSchema>;
export type PluginList = z.infer<typeof PluginListSchema>;
export type PluginUpdateBody = z.infer<typeof PluginUpdateBodySchema>;
