import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { PluginList, PluginUpdateBody, PluginView } from "@core/schemas/plugins";
import { api } from "~/api";
import { useCurrentOrganizationId } from "~/profile";

export const pluginsQueryKey = (organizationId: string | null, platformId: string) => ["tradePlatformPlugins", organizationId, platformId] as const;

/** GET /api/tradePlatforms/:id/plugins: the server's plugins (read from the server each time). */
export function usePlugins(platformId: string) {
  const organizationId = useCurrentOrganizationId();
  return useQuery({
    queryKey: pluginsQueryKey(organizationId, platformId),
    queryFn: ({ signal }) => api.get<PluginList>(`/api/tradePlatforms/${platformId}/plugins`, { signal }),
    enabled: Boolean(organizationId),
  });
}

/** PUT …/plugins/:pluginId; the list then shows the plugin as the server answered. Failures are the dialog's to show (silent). */
export function useChangePlugin(platformId: string) {
  const organizationId = useCurrentOrganizationId();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ pluginId, body }: { pluginId: string; body: PluginUpdateBody }) =>
      api.put<PluginView>(`/api/tradePlatforms/${platformId}/plugins/${encodeURIComponent(pluginId)}`, body, { silent: true }),
    onSuccess: (saved) =>
      queryClient.setQueryData<PluginList>(pluginsQueryKey(organizationId, platformId), (list) =>
        list ? { ...list, plugins: list.plugins.map((p) => (p.id === saved.id ? saved : p)) } : list,
      ),
  });
}
