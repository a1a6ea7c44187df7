import { useEffect } from "react";
import { startPreflight } from "./preflight";
import { useProfileStore } from "./store";

/** Runs preflight once the person is signed in (docs/requirements.md#r-states: at app mount, only when authenticated). */
export function usePreflight(authenticated: boolean): boolean {
  const done = useProfileStore((s) => s.preflightDone);
  useEffect(() => {
    if (!authenticated || useProfileStore.getState().preflightDone) return;
    return startPreflight();
  }, [authenticated]);
  return done;
}
