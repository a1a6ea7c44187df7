import { z } from "zod";

export const ClaimSchema = z.object({
  type: z.string().meta({ description: "`organization:admin`, or `Module.{module}.{organizationId}`" }),
  value: z.string().meta({ description: "The organization id for `organization:admin`; otherwise comma-separated permissions" }),
});

export const PreflightSchema = z.object({
  user: z.object({ sub: z.string(), email: z.string().nullable(), name: z.string().nullable() }),
  organizationCount: z.number().int().meta({ description: "How many organizations the caller belongs to" }),
  createdOrganizationId: z.guid().optional().meta({ description: "Set only on the first sign-in of a new person: the organization just created for them" }),
  serverTime: z.iso.datetime(),
});

export const UserClaimsSchema = z.array(ClaimSchema);
