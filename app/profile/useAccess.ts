import { useMemo } from "react";
import { hasAccess, hasModuleAccess, isOrganizationAdmin, type Module, type Permission } from "@core/access";
import { useCurrentOrganizationId } from "./selectors";
import { useProfileStore } from "./store";

export interface Access {
  /** docs/requirements.md#r-access hasAccess(type, value) in the current organization. */
  hasAccess: (type: string, value: string) => boolean;
  /** `Module.{module}.{currentOrganizationId}` holds `permission`. */
  hasModule: (module: Module, permission: Permission) => boolean;
  isAdmin: boolean;
}

/**
 * The access rule of core/access.ts bound to the signed-in person's claims and the current
 * organization. The UI only hides what the API would refuse; the API decides.
 */
export function useAccess(): Access {
  const claims = useProfileStore((s) => s.claims);
  const organizationId = useCurrentOrganizationId() ?? undefined;
  return useMemo(
    () => ({
      hasAccess: (type, value) => hasAccess(claims, organizationId, type, value),
      hasModule: (module, permission) => hasModuleAccess(claims, organizationId, module, permission),
      isAdmin: isOrganizationAdmin(claims, organizationId),
    }),
    [claims, organizationId],
  );
}
