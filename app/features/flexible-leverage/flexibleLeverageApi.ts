import { keepPreviousData, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { FlexibleLeverageSettings } from "@core/flexibleLeverage/index";
import type { FlexibleLeverageHistory, FlexibleLeveragePreview, FlexibleLeveragePreviewBody, FlexibleLeverageView } from "@core/schemas/flexibleLeverage";
import { api } from "~/api";
import { useCurrentOrganizationId } from "~/profile";

const base = (platformId: string, pluginId: string) => `/api/tradePlatforms/${platformId}/plugins/${encodeURIComponent(pluginId)}/flexibleLeverage`;
export const flexibleLeverageKey = (organizationId: string | null, platformId: string, pluginId: string) =>
  ["flexibleLeverage", organizationId, platformId, pluginId] as const;

/** GET …/flexibleLeverage: the plugin's settings as the server has them, with the server's groups, symbols and clock. */
export function useFlexibleLeverage(platformId: string, pluginId: string) {
  const organizationId = useCurrentOrganizationId();
  return useQuery({
    queryKey: flexibleLeverageKey(organizationId, platformId, pluginId),
    queryFn: ({ signal }) => api.get<FlexibleLeverageView>(base(platformId, pluginId), { signal }),
    enabled: Boolean(organizationId),
    refetchOnWindowFocus: false,
  });
}

/** PUT …/flexibleLeverage. Failures are the page's to show (silent). */
export function useSaveFlexibleLeverage(platformId: string, pluginId: string) {
  const organizationId = useCurrentOrganizationId();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (settings: FlexibleLeverageSettings) => api.put<FlexibleLeverageView>(base(platformId, pluginId), settings, { silent: true }),
    onSuccess: (saved) => {
      queryClient.setQueryData(flexibleLeverageKey(organizationId, platformId, pluginId), saved);
      void queryClient.invalidateQueries({ queryKey: ["flexibleLeveragePreview", organizationId, platformId, pluginId] });
      void queryClient.invalidateQueries({ queryKey: ["flexibleLeverageHistory", organizationId, platformId, pluginId] });
    },
  });
}

/** POST …/flexibleLeverage/preview for valid settings (null: nothing to preview); the last answer stays while the next is read. */
export function useFlexibleLeveragePreview(platformId: string, pluginId: string, body: FlexibleLeveragePreviewBody | null) {
  const organizationId = useCurrentOrganizationId();
  return useQuery({
    queryKey: ["flexibleLeveragePreview", organizationId, platformId, pluginId, body] as const,
    queryFn: ({ signal }) => api.post<FlexibleLeveragePreview>(`${base(platformId, pluginId)}/preview`, body, { signal, silent: true }),
    enabled: Boolean(organizationId) && body !== null,
    placeholderData: keepPreviousData,
    refetchOnWindowFocus: false,
  });
}

/** GET …/flexibleLeverage/history: the saves made from Toolbox, newest first, each with its settings. */
export function useFlexibleLeverageHistory(platformId: string, pluginId: string) {
  const organizationId = useCurrentOrganizationId();
  return useQuery({
    queryKey: ["flexibleLeverageHistory", organizationId, platformId, pluginId] as const,
    queryFn: ({ signal }) => api.get<FlexibleLeverageHistory>(`${base(platformId, pluginId)}/history`, { signal, silent: true }),
    enabled: Boolean(organizationId),
    refetchOnWindowFocus: false,
  });
}
