import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { ModulePermissions } from "@core/roles";
import type { ApiClientCreated, ApiClientView } from "@core/schemas/apiClients";
import { api } from "~/api";
import { useCurrentOrganizationId } from "~/profile";

const key = (org: string | null) => ["apiClients", org] as const;

export function useApiClients(enabled: boolean) {
  const org = useCurrentOrganizationId();
  return useQuery({ queryKey: key(org), queryFn: () => api.get<ApiClientView[]>("/api/organization/api-clients"), enabled: Boolean(org) && enabled });
}

function useApiClientsMutation<A, R>(fn: (args: A) => Promise<R>) {
  const queryClient = useQueryClient();
  const org = useCurrentOrganizationId();
  return useMutation({ mutationFn: fn, onSettled: () => queryClient.invalidateQueries({ queryKey: key(org) }) });
}

export const useCreateApiClient = () =>
  useApiClientsMutation((body: { name: string; permissions: ModulePermissions }) =>
    api.post<ApiClientCreated>("/api/organization/api-clients", body, { silent: true }),
  );
export const useRevokeApiClient = () => useApiClientsMutation((clientId: string) => api.del(`/api/organization/api-clients/${encodeURIComponent(clientId)}`));
