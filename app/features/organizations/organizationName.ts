/**
 * The API's rule for an organization name (server/modules/organizations/schemas.ts), checked in the
 * form first so the person hears about it before sending. The API stays the judge.
 */
export const ORGANIZATION_NAME_MAX = 100;

export function organizationNameError(raw: string): string | null {
  const name = raw.trim();
  if (!name) return "Enter a name for the organization.";
  if (name.length > ORGANIZATION_NAME_MAX) return `Use at most ${ORGANIZATION_NAME_MAX} characters.`;
  // eslint-disable-next-line no-control-regex -- control characters are what the API refuses
  if (/[\u0000-\u001f\u007f]/.test(name)) return "Remove the control characters.";
  return null;
}
