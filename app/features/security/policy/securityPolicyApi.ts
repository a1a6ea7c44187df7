import { api } from "~/api";
import type { SecurityPolicyInput, SecurityPolicyView } from "@core/schemas/securityPolicy";

export type { SecurityPolicyInput, SecurityPolicyView } from "@core/schemas/securityPolicy";

/** The organization's sign-in policy (GET/PUT /api/organization/security); forms show refusals inline. */
export const securityPolicyApi = {
  get: (signal?: AbortSignal) => api.get<SecurityPolicyView>("/api/organization/security", { signal }),
  save: (body: SecurityPolicyInput) => api.put<SecurityPolicyView>("/api/organization/security", body, { silent: true }),
};

export const securityPolicyKey = (organizationId: string | null) => ["organizationSecurity", organizationId] as const;

/** The saved policy as a request body (a section changes its own fields only). */
export function inputOf(p: SecurityPolicyView): SecurityPolicyInput {
  return { requireTwoFactor: p.requireTwoFactor, sessionLifetimeSeconds: p.sessionLifetimeSeconds, allowedIpRanges: p.allowedIpRanges };
}
