/**
 * Members, roles and invitations: the shapes the API (server/modules/members) and the screen
 * (/settings/members) share. docs/administration.md describes them.
 */
import { z } from "zod";
import { MODULES, type Module } from "../access.ts";
import { PERMISSIONS, ROLE_PRESETS } from "../roles.ts";

export const INVITATION_EMAIL_MAX = 254;

export const RolePresetSchema = z.enum(ROLE_PRESETS, {
  error: `role must be one of: ${ROLE_PRESETS.join(", ")}`,
});
export const RoleSchema = z.enum([...ROLE_PRESETS, "custom"]);

const PermissionListSchema = z.array(z.enum(PERMISSIONS, { error: `Permissions are ${PERMISSIONS.join(", ")}` })).max(PERMISSIONS.length * 2);

/** Per module, the permissions given (modules left out: none). */
export const ModulePermissionsSchema = z
  .record(z.string(), PermissionListSchema)
  .refine((p) => Object.keys(p).every((k) => (MODULES as readonly string[]).includes(k)), {
    error: `Modules are ${MODULES.join(", ")}`,
  })
  .transform((p) => p as Partial<Record<Module, (typeof PERMISSIONS)[number][]>>);

const ONE_OF = `Give either "role" (one of ${ROLE_PRESETS.join(", ")}) or "permissions" ({"<module>": ["read", "write", "money"]}), not both.`;
const accessFields = { role: RolePresetSchema.optional(), permissions: ModulePermissionsSchema.optional() };
const exactlyOne = (v: { role?: unknown; permissions?: unknown }) => (v.role === undefined) !== (v.permissions === undefined);

/** A role given to a member or an invitee: a preset, or permissions module by module. */
export const AccessInputSchema = z
  .object(accessFields, { error: `The body must be a JSON object. ${ONE_OF}` })
  .strict()
  .refine(exactlyOne, { error: ONE_OF });
export type AccessInput = z.infer<typeof AccessInputSchema>;

const AccessViewFields = {
  role: RoleSchema.meta({ description: "The preset the member's claims match, or `custom`" }),
  admin: z.boolean().meta({ description: "Holds `organization:admin` here: may do everything" }),
  permissions: z.record(z.string(), z.array(z.string())).meta({ description: "Per module, the permissions given (empty for an administrator)" }),
};

export const MemberSchema = z.object({
  sub: z.string(),
  email: z.string().nullable(),
  name: z.string().nullable(),
  joinedAt: z.iso.datetime(),
  lastSignInAt: z.iso.datetime().nullable(),
  ...AccessViewFields,
  claims: z.array(z.object({ type: z.string(), value: z.string() })),
});
export type MemberView = z.infer<typeof MemberSchema>;

export const InvitationStatusSchema = z.enum(["pending", "expired"]);

export const InvitationSchema = z.object({
  id: z.guid(),
  email: z.string(),
  ...AccessViewFields,
  invitedBy: z.string(),
  createdAt: z.iso.datetime(),
  sentAt: z.iso.datetime(),
  expiresAt: z.iso.datetime(),
  status: InvitationStatusSchema,
});
export type InvitationView = z.infer<typeof InvitationSchema>;

export const InviteEmailSchema = z
  .string({ error: (issue) => (issue.input === undefined ? "email is required" : "email must be text") })
  .trim()
  .min(1, { error: "Enter the e-mail address to invite." })
  .max(INVITATION_EMAIL_MAX, { error: "This e-mail address is too long." })
  .pipe(z.email({ error: "Enter a valid e-mail address, like name@example.com." }))
  .transform((e) => e.toLowerCase());

export const InviteSchema = z
  .object({ email: InviteEmailSchema, ...accessFields }, { error: `The body must be a JSON object with "email". ${ONE_OF}` })
  .strict()
  .refine(exactlyOne, { error: ONE_OF });

/** What sending an invitation did: e-mailed, or put in the outbox (then the link is shown once to copy). */
export const InvitationSentSchema = z.object({
  invitation: InvitationSchema,
  delivery: z.enum(["email", "outbox"]),
  link: z.string().optional().meta({ description: "Only without SMTP_URL: the link to give the invitee (shown once, not kept)" }),
});
export type InvitationSent = z.infer<typeof InvitationSentSchema>;

export const OutboxMessageSchema = z.object({
  id: z.guid(),
  to: z.string(),
  subject: z.string(),
  text: z.string(),
  createdAt: z.iso.datetime(),
});

export const AcceptInvitationSchema = z.object(
  {
    token: z
      .string({ error: "token is required" })
      .trim()
      .regex(/^[A-Za-z0-9_-]{20,100}$/, { error: "This invitation link is not complete. Open the link from the e-mail again." }),
  },
  { error: 'The body must be {"token": "<the token from the invitation link>"}' },
);

export const InvitationAcceptedSchema = z.object({ organizationId: z.guid(), organizationName: z.string() });

export { INVITATION_LINK_HASH, INVITATION_LINK_PATH, INVITATION_SIGN_IN_PARAM } from "../invitationLink.ts";
