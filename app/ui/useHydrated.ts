import { useSyncExternalStore } from "react";

const subscribe = () => () => {};

/**
 * false while the server renders and while the browser hydrates that HTML, true from then on.
 * Anything that depends on browser state (the signed-in user, local storage) waits for it, so
 * the first client frame equals the server's and hydration never mismatches (and AG Grid, which
 * needs a real DOM to measure, waits for it too).
 */
export function useHydrated(): boolean {
  return useSyncExternalStore(
    subscribe,
    () => true,
    () => false,
  );
}
