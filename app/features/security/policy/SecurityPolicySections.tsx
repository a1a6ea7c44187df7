import { useQuery } from "@tanstack/react-query";
import { useAccess, useCurrentOrganizationId } from "~/profile";
import { Skeleton } from "~/ui/Skeleton";
import { AllowedIpRangesSection } from "./AllowedIpRangesSection";
import { securityPolicyApi, securityPolicyKey } from "./securityPolicyApi";
import { SignInPolicySection } from "./SignInPolicySection";

/** The organization's sign-in policy and allowed IP ranges, for those who may read its settings. */
export function SecurityPolicySections() {
  const organizationId = useCurrentOrganizationId();
  const { hasModule } = useAccess();
  const canRead = hasModule("settings", "read");
  const canWrite = hasModule("settings", "write");
  const policy = useQuery({
    queryKey: securityPolicyKey(organizationId),
    queryFn: ({ signal }) => securityPolicyApi.get(signal),
    enabled: canRead,
  });
  if (!canRead) return null;
  if (!policy.data) return <Skeleton className="h-64 w-full" />;
  // Keyed on the saved policy, so the forms start over from what the server now holds.
  const key = JSON.stringify(policy.data);
  return (
    <>
      <SignInPolicySection key={`sign-in-${key}`} policy={policy.data} canWrite={canWrite} />
      <AllowedIpRangesSection key={`ranges-${key}`} policy={policy.data} canWrite={canWrite} />
    </>
  );
}
