import { z } from "zod";

export const ORGANIZATION_NAME_MAX = 100;

/**
 * An organization's name: the one rule the create form checks first and the API enforces
 * (POST /api/organizations). Trimmed, 1–100 characters, no control characters.
 */
export const OrganizationNameSchema = z
  .string({ error: (issue) => (issue.input === undefined ? "name is required" : "name must be text") })
  .trim()
  .min(1, { error: "Enter a name for the organization." })
  .max(ORGANIZATION_NAME_MAX, { error: `Use at most ${ORGANIZATION_NAME_MAX} characters.` })
  // eslint-disable-next-line no-control-regex -- control characters are what we refuse
  .regex(/^[^\u0000-\u001f\u007f]*$/, { error: "Remove the control characters." });
