import { OrganizationNameSchema } from "@core/schemas/organization";

export { ORGANIZATION_NAME_MAX } from "@core/schemas/organization";

/** The API's own rule (core/schemas/organization.ts), checked in the form before sending; the API stays the judge. */
export function organizationNameError(raw: string): string | null {
  const result = OrganizationNameSchema.safeParse(raw);
  return result.success ? null : (result.error.issues[0]?.message ?? "Enter a valid name.");
}
