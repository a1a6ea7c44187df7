import { useSyncExternalStore } from "react";

const subscribe = () => () => {};

/** false during the server render and hydration, true after: AG Grid needs a real DOM to measure. */
export function useIsClient(): boolean {
  return useSyncExternalStore(
    subscribe,
    () => true,
    () => false,
  );
}
