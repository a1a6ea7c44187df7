import { cn } from "~/ui/cn";

/** A dot and, when asked, a word for a platform's enable flag; the word is always there for screen readers. */
export function EnabledState({ enabled, showLabel = false, className }: { enabled: boolean; showLabel?: boolean; className?: string }) {
  const label = enabled ? "Enabled" : "Disabled";
  return (
    <span className={cn("inline-flex items-center gap-1.5 text-xs text-muted", className)}>
      <span aria-hidden className={cn("size-2 rounded-full", enabled ? "bg-success" : "bg-muted/50")} />
      <span className={showLabel ? undefined : "sr-only"}>{label}</span>
    </span>
  );
}
