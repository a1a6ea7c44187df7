import { useNavigation } from "react-router";
import { useActivityStore } from "./activity";
import { LOADING_BAR, useLoadingIndicator } from "./useLoadingIndicator";

/**
 * The thin green bar at the top of the window while a page loads or API calls run (docs/requirements.md#r-constants).
 * Decorative: screen readers get `aria-busy` on the content instead.
 */
export function LoadingBar({ active = false }: { active?: boolean }) {
  const navigating = useNavigation().state !== "idle";
  const calls = useActivityStore((s) => s.pending > 0);
  const { visible, progress } = useLoadingIndicator(active || navigating || calls);
  return (
    <div
      aria-hidden
      className="pointer-events-none fixed top-0 left-0 z-[200] bg-primary shadow-[0_0_8px_var(--tb-primary)] transition-[width,opacity] duration-100 ease-out"
      style={{ height: LOADING_BAR.height, width: `${progress}%`, opacity: visible ? 1 : 0, transitionDuration: visible ? "100ms" : "400ms" }}
    />
  );
}
