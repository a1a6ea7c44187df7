import { cn } from "./cn";

/** The Toolbox logo mark: a green rounded square with a toolbox outline. Decorative. */
export function ToolboxMark({ className }: { className?: string }) {
  return (
    <svg viewBox="0 0 32 32" aria-hidden className={cn("size-8 shrink-0", className)}>
      <rect width="32" height="32" rx="8" className="fill-primary" />
      <path
        d="M12 11V9.5A1.5 1.5 0 0 1 13.5 8h5A1.5 1.5 0 0 1 20 9.5V11M7.5 11h17a1 1 0 0 1 1 1v10a2 2 0 0 1-2 2h-15a2 2 0 0 1-2-2V12a1 1 0 0 1 1-1ZM6.5 17h19M14 17v2h4v-2"
        fill="none"
        stroke="white"
        strokeWidth="1.8"
        strokeLinecap="round"
        strokeLinejoin="round"
      />
    </svg>
  );
}
