/**
 * API clients (machine access with client credentials): the shapes the API
 * (server/modules/apiClients) and the screen (/settings/security) share. docs/api.md describes them.
 */
import { z } from "zod";
import { ModulePermissionsSchema } from "./members.ts";

export const API_CLIENT_NAME_MAX = 100;
/** A client's id: `tbc_` and 16 base64url characters (12 random bytes). */
export const API_CLIENT_ID_PATTERN = /^tbc_[A-Za-z0-9_-]{16}$/;

export const ApiClientNameSchema = z
  .string({ error: (issue) => (issue.input === undefined ? "name is required" : "name must be text") })
  .trim()
  .min(1, { error: "Give the client a name, e.g. the system that will use it." })
  .max(API_CLIENT_NAME_MAX, { error: `The name can have at most ${API_CLIENT_NAME_MAX} characters.` });

export const CreateApiClientSchema = z
  .object(
    {
      name: ApiClientNameSchema,
      permissions: ModulePermissionsSchema.meta({ description: 'Per module, the permissions given: {"users": ["read"]}. Never administrator.' }),
    },
    { error: 'The body must be a JSON object with "name" and "permissions".' },
  )
  .strict()
  .refine((v) => Object.values(v.permissions).some((p) => p && p.length > 0), {
    error: "Give the client at least one permission.",
    path: ["permissions"],
  });
export type CreateApiClient = z.infer<typeof CreateApiClientSchema>;

export const ApiClientSchema = z.object({
  clientId: z.string().meta({ description: "The OAuth client_id" }),
  name: z.string(),
  permissions: z.record(z.string(), z.array(z.string())).meta({ description: "Per module, the permissions given" }),
  createdBy: z.string().meta({ description: "Name (or id) of the member who created it" }),
  createdAt: z.iso.datetime(),
  lastUsedAt: z.iso.datetime().nullable().meta({ description: "Last call to the API, to the minute" }),
});
export type ApiClientView = z.infer<typeof ApiClientSchema>;

export const ApiClientCreatedSchema = ApiClientSchema.extend({
  clientSecret: z.string().meta({ description: "The secret, shown in this answer only: it is stored hashed and cannot be shown again" }),
});
export type ApiClientCreated = z.infer<typeof ApiClientCreatedSchema>;

export const ApiClientParamsSchema = z.object({
  clientId: z.string().regex(API_CLIENT_ID_PATTERN, { error: "This is not an API client's id (tbc_…)." }),
});
