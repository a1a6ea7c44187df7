import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useCallback, useEffect, useRef } from "react";
import { api, ApiError } from "~/api";
import { useProfileStore } from "~/profile/store";
import { readSavedColumns, type SavedColumns } from "./columnState";

/** Column changes come in bursts (dragging a width): save once they settle. */
export const SAVE_DELAY_MS = 800;

const preferencePath = (key: string) => `/api/preferences/${encodeURIComponent(key)}`;

/**
 * A member's saved columns for one table (GET/PUT /api/preferences/:key, per member and
 * organization). `ready` turns true once the answer (or its absence) is known; a failure to
 * read or save is never worth an error toast: the table works with its defaults.
 */
export function useColumnPreference(key: string | undefined) {
  const organizationId = useProfileStore((s) => s.currentOrganizationId);
  const queryClient = useQueryClient();
  const queryKey = ["preferences", organizationId, key];
  const query = useQuery({
    queryKey,
    enabled: !!key,
    staleTime: Infinity,
    retry: false,
    queryFn: async ({ signal }) => {
      try {
        const answer = await api.get<{ value?: unknown } | null>(preferencePath(key!), { signal, silent: true });
        return readSavedColumns(answer && typeof answer === "object" && "value" in answer ? answer.value : answer);
      } catch (error) {
        if (error instanceof ApiError && error.status === 404) return null;
        throw error;
      }
    },
  });

  const timer = useRef<ReturnType<typeof setTimeout>>(undefined);
  const pending = useRef<SavedColumns | null>(null);
  const flush = useCallback(() => {
    clearTimeout(timer.current);
    const value = pending.current;
    pending.current = null;
    if (key && value) void api.put(preferencePath(key), { value }, { silent: true }).catch(() => undefined);
  }, [key]);
  const save = useCallback(
    (value: SavedColumns) => {
      // The next visit in this session starts from this state, not the one read at first.
      queryClient.setQueryData(["preferences", organizationId, key], value);
      pending.current = value;
      clearTimeout(timer.current);
      timer.current = setTimeout(flush, SAVE_DELAY_MS);
    },
    [flush, queryClient, organizationId, key],
  );
  // Leaving the page must not lose a change made in the last moment.
  useEffect(() => flush, [flush]);

  return { ready: !key || !query.isPending, saved: query.data ?? null, save };
}
