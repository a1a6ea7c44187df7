import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { DealingSettings, DealingView, OverrideBody } from "@core/dealing/schema";
import { api } from "~/api";
import { useCurrentOrganizationId } from "~/profile";

export const dealingQueryKey = (organizationId: string | null, platformId: string) => ["tradePlatformDealing", organizationId, platformId] as const;

/**
 * GET /api/tradePlatforms/:id/dealing, refreshed each half minute (the profile in force moves with
 * the clock), and a second after the next switch when that comes sooner, so the page shows the
 * switch as it happens.
 */
export function useDealing(platformId: string) {
  const organizationId = useCurrentOrganizationId();
  return useQuery({
    queryKey: dealingQueryKey(organizationId, platformId),
    queryFn: ({ signal }) => api.get<DealingView>(`/api/tradePlatforms/${platformId}/dealing`, { signal }),
    enabled: Boolean(organizationId),
    refetchInterval: (query) => {
      const next = query.state.data?.active.next?.at;
      const untilNext = next ? Date.parse(next) - Date.now() + 1_000 : Infinity;
      return Math.max(1_000, Math.min(30_000, untilNext));
    },
  });
}

/** The writes (PUT settings, POST/DELETE override): each answers the whole view, which replaces the cached one. Failures are the page's to show. */
export function useDealingWrites(platformId: string) {
  const organizationId = useCurrentOrganizationId();
  const queryClient = useQueryClient();
  const onSuccess = (view: DealingView) => queryClient.setQueryData(dealingQueryKey(organizationId, platformId), view);
  const url = `/api/tradePlatforms/${platformId}/dealing`;
  return {
    save: useMutation({ mutationFn: (settings: DealingSettings) => api.put<DealingView>(url, settings, { silent: true }), onSuccess }),
    setOverride: useMutation({ mutationFn: (body: OverrideBody) => api.post<DealingView>(`${url}/override`, body, { silent: true }), onSuccess }),
    endOverride: useMutation({ mutationFn: () => api.del<DealingView>(`${url}/override`, undefined, { silent: true }), onSuccess }),
  };
}
