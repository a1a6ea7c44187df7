import { LoaderCircle } from "lucide-react";
import { cn } from "./cn";

const sizes = { sm: "size-4", md: "size-5", lg: "size-8" } as const;

/**
 * A spinning circle. `label` is read by screen readers (role=status); pass null when the
 * surrounding element already says what is loading (a busy button, a placeholder).
 */
export function Spinner({ size = "md", label = "Loading", className }: { size?: keyof typeof sizes; label?: string | null; className?: string }) {
  const icon = <LoaderCircle aria-hidden className={cn("animate-spin text-current", sizes[size], className)} />;
  if (label === null) return icon;
  return (
    <span role="status" className="inline-flex items-center">
      {icon}
      <span className="sr-only">{label}</span>
    </span>
  );
}
