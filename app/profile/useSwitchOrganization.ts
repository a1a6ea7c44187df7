import { useQueryClient } from "@tanstack/react-query";
import { useCallback } from "react";
import { currentOrganizationId } from "./selectors";
import { useProfileStore } from "./store";

/**
 * Work inside another organization: every later API call carries its id, and cached server data
 * of the previous one is dropped and refetched so it never shows under the new name.
 */
export function useSwitchOrganization(): (organizationId: string) => void {
  const queryClient = useQueryClient();
  return useCallback(
    (organizationId: string) => {
      if (organizationId === currentOrganizationId()) return;
      useProfileStore.getState().setCurrentOrganization(organizationId);
      void queryClient.cancelQueries();
      void queryClient.resetQueries();
    },
    [queryClient],
  );
}
