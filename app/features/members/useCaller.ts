import { useMemo } from "react";
import { accessOfClaims, type MemberAccess } from "@core/roles";
import { useAuthStore } from "~/auth";
import { useCurrentOrganizationId, useProfileStore } from "~/profile";

/**
 * The signed-in person's own access in the current organization and their id: what the members
 * screen needs to offer only what they may give and manage (core/grants.ts; the API decides).
 */
export function useCaller(): { access: MemberAccess; sub: string | undefined } {
  const claims = useProfileStore((s) => s.claims);
  const organizationId = useCurrentOrganizationId();
  const sub = useAuthStore((s) => s.user?.profile.sub);
  const access = useMemo(() => accessOfClaims(claims, organizationId ?? ""), [claims, organizationId]);
  return { access, sub };
}
