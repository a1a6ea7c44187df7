import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useCurrentOrganizationId } from "~/profile";
import { platformApi, platformQueryKey, toListEntry, type PlatformDetail } from "../platformApi";
import { upsertProfilePlatform } from "../profilePlatforms";

/** GET /api/tradePlatforms/:id for the current organization. */
export function usePlatformDetail(id: string) {
  const organizationId = useCurrentOrganizationId();
  return useQuery({
    queryKey: platformQueryKey(organizationId, id),
    queryFn: ({ signal }) => platformApi.get(id, signal),
  });
}

/** After a change: the cached detail, and the sidebar's list entry (name, enable), follow the API's answer. */
export function useStorePlatformDetail() {
  const queryClient = useQueryClient();
  const organizationId = useCurrentOrganizationId();
  return (detail: PlatformDetail) => {
    queryClient.setQueryData(platformQueryKey(organizationId, detail.id), detail);
    upsertProfilePlatform(toListEntry(detail));
  };
}
