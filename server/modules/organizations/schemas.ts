import { z } from "zod";
import { OrganizationNameSchema } from "../../../core/schemas/organization.ts";

export const OrganizationSchema = z.object({
  id: z.guid(),
  name: z.string(),
  timeZone: z.string().meta({ description: "The default time zone (IANA) for members who have not chosen their own" }),
  createdAt: z.iso.datetime(),
  isAdmin: z.boolean().meta({ description: "The caller administers it (holds `organization:admin` = its id)" }),
});

export const OrganizationListSchema = z.array(OrganizationSchema);

export const CreateOrganizationSchema = z.object(
  { name: OrganizationNameSchema },
  { error: 'The body must be a JSON object such as {"name": "Acme Brokers"}' },
);

export type Organization = z.infer<typeof OrganizationSchema>;
