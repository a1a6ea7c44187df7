import { cn } from "~/ui/cn";
import type { PlatformDisplayState } from "./live/usePlatformLiveState";

/** Words a dealer reads for each state, and the colour of its dot. */
export const CONNECTION_STATE_LABELS: Record<PlatformDisplayState, string> = {
  connected: "Connected",
  connecting: "Connecting",
  reconnecting: "Reconnecting",
  disconnected: "Disconnected",
  failed: "Connection failed",
  disabled: "Disabled",
  unknown: "Checking connection",
};

const dots: Record<PlatformDisplayState, string> = {
  connected: "bg-success",
  connecting: "bg-warning animate-pulse",
  reconnecting: "bg-warning animate-pulse",
  disconnected: "bg-muted/60",
  failed: "bg-danger",
  disabled: "border border-muted/60 bg-transparent",
  unknown: "bg-muted/30",
};

/**
 * A coloured dot and the state in words. The words are always there for screen readers; colour
 * is never the only signal (a failed platform also reads "Connection failed").
 */
export function ConnectionStateIndicator({ state, showLabel = false, className }: { state: PlatformDisplayState; showLabel?: boolean; className?: string }) {
  return (
    <span className={cn("inline-flex items-center gap-1.5 text-xs", state === "failed" ? "text-danger" : "text-muted", className)}>
      <span aria-hidden className={cn("size-2 shrink-0 rounded-full", dots[state])} />
      <span className={showLabel ? undefined : "sr-only"}>{CONNECTION_STATE_LABELS[state]}</span>
    </span>
  );
}
