import type { ComponentProps } from "react";
import { cn, focusRing } from "./cn";

/** Text input; `aria-invalid` (set by Field) turns the border red. */
export function Input({ className, type = "text", ...props }: ComponentProps<"input">) {
  return (
    <input
      type={type}
      className={cn(
        "flex h-9 w-full min-w-0 rounded-md border border-input bg-surface px-3 text-sm text-fg shadow-xs transition-colors",
        "placeholder:text-muted disabled:cursor-not-allowed disabled:opacity-50",
        "aria-[invalid=true]:border-danger aria-[invalid=true]:focus-visible:ring-danger",
        focusRing,
        "focus-visible:ring-offset-0",
        className,
      )}
      {...props}
    />
  );
}
