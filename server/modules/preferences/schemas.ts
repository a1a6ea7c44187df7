import { z } from "zod";

export const PREFERENCE_VALUE_MAX_BYTES = 32 * 1024;

const isJson = z.json();
/**
 * Any JSON value, checked as z.json() does, but documented as the empty schema (any value): the
 * recursive schema of z.json() left the OpenAPI document with dangling `$ref`s.
 */
const JsonValue = z.unknown().refine((v) => v !== undefined && isJson.safeParse(v).success, {
  error: "value must be JSON (an object, array, text, number, true/false or null)",
});

export const PreferenceParamsSchema = z.object({
  key: z
    .string()
    .regex(/^[a-zA-Z0-9._-]{1,100}$/, { error: "A preference key is 1 to 100 letters, digits, dots, dashes or underscores (e.g. users.grid.columns)" }),
});

export const PutPreferenceSchema = z
  .object({ value: JsonValue }, { error: 'The body must be a JSON object such as {"value": {"columns": []}}' })
  .refine((b) => b.value !== undefined, { error: "value is required (null clears the preference)", path: ["value"] })
  .refine((b) => Buffer.byteLength(JSON.stringify(b.value ?? null)) <= PREFERENCE_VALUE_MAX_BYTES, {
    error: `value is larger than ${PREFERENCE_VALUE_MAX_BYTES / 1024} KB`,
    path: ["value"],
  });

export const PreferenceSchema = z.object({
  key: z.string(),
  value: JsonValue.meta({ description: "The stored value; null when the member has not set one" }),
  updatedAt: z.iso.datetime().nullable(),
});
