import { useQuery, useQueryClient } from "@tanstack/react-query";
import { createContext, useCallback, useContext, useEffect, useRef, type ReactNode } from "react";
import { readSavedColumns, type SavedColumns } from "./columnState";

/** Column changes come in bursts (dragging a width): save once they settle. */
export const SAVE_DELAY_MS = 800;

/**
 * Where the grids keep a member's column layouts. The design system does not know the API nor
 * who is signed in where: the feature that shows a grid provides this (the profile's
 * `useMemberPreferences()` keeps them per member and organization on the server).
 */
export interface ColumnPreferenceStore {
  /** Whose layouts these are (the organization): saved layouts are cached per scope and key. */
  scope: string | null;
  /** The value saved under `key`, or null when there is none. */
  read: (key: string, signal: AbortSignal) => Promise<unknown>;
  write: (key: string, value: SavedColumns) => Promise<unknown>;
}

const ColumnPreferenceContext = createContext<ColumnPreferenceStore | null>(null);

/** The grids below keep their column layouts (`stateKey`) in `store`; without one they keep nothing. */
export function ColumnPreferenceProvider({ store, children }: { store: ColumnPreferenceStore; children: ReactNode }) {
  return <ColumnPreferenceContext value={store}>{children}</ColumnPreferenceContext>;
}

export const preferenceQueryKey = (scope: string | null, key: string | undefined) => ["preferences", scope, key] as const;

/**
 * A member's saved columns for one table, from the provided store. `ready` turns true once the
 * answer (or its absence) is known; a failure to read or save is never worth an error toast: the
 * table works with its defaults.
 */
export function useColumnPreference(key: string | undefined) {
  const store = useContext(ColumnPreferenceContext);
  const scope = store?.scope ?? null;
  const enabled = !!key && !!store;
  const queryClient = useQueryClient();
  const query = useQuery({
    queryKey: preferenceQueryKey(scope, key),
    enabled,
    staleTime: Infinity,
    retry: false,
    queryFn: async ({ signal }) => (store && key ? readSavedColumns(await store.read(key, signal)) : null),
  });

  const timer = useRef<ReturnType<typeof setTimeout>>(undefined);
  const pending = useRef<SavedColumns | null>(null);
  const flush = useCallback(() => {
    clearTimeout(timer.current);
    const value = pending.current;
    pending.current = null;
    // Fire and forget: a layout that could not be saved is not worth telling the member about.
    if (store && key && value) void store.write(key, value).catch(() => undefined);
  }, [store, key]);
  const save = useCallback(
    (value: SavedColumns) => {
      if (!enabled) return;
      // The next visit in this session starts from this state, not the one read at first.
      queryClient.setQueryData(preferenceQueryKey(scope, key), value);
      pending.current = value;
      clearTimeout(timer.current);
      timer.current = setTimeout(flush, SAVE_DELAY_MS);
    },
    [enabled, flush, queryClient, scope, key],
  );
  // Leaving the page must not lose a change made in the last moment.
  useEffect(() => flush, [flush]);

  return { ready: !enabled || !query.isPending, saved: query.data ?? null, save };
}
