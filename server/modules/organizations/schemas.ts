import { z } from "zod";

export const OrganizationSchema = z.object({
  id: z.guid(),
  name: z.string(),
  createdAt: z.iso.datetime(),
  isAdmin: z.boolean().meta({ description: "The caller administers it (holds `organization:admin` = its id)" }),
});

export const OrganizationListSchema = z.array(OrganizationSchema);

const OrganizationName = z
  .string({ error: (issue) => (issue.input === undefined ? "name is required" : "name must be text") })
  .trim()
  .min(1, { error: "name must not be empty" })
  .max(100, { error: "name must be at most 100 characters" })
  // eslint-disable-next-line no-control-regex
  .regex(/^[^\u0000-\u001f\u007f]*$/, { error: "name must not contain control characters" });

export const CreateOrganizationSchema = z.object(
  { name: OrganizationName },
  { error: 'The body must be a JSON object such as {"name": "Acme Brokers"}' },
);

export type Organization = z.infer<typeof OrganizationSchema>;
