/** Name of the organization created at a person's first sign-in: "Ada Lovelace's organization". */
export function firstOrganizationName(user: { name: string | null; email: string | null }): string {
  const who = user.name?.trim() || user.email?.split("@")[0]?.trim();
  const name = who ? `${who}'s organization` : "My organization";
  // The same limit as organizations created by hand; a very long name is cut, not refused.
  return name.length <= 100 ? name : `${name.slice(0, 99)}…`;
}
