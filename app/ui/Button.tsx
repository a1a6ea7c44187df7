import { Slot } from "@radix-ui/react-slot";
import type { ComponentProps } from "react";
import { cn, focusRing } from "./cn";
import { Spinner } from "./Spinner";

const variants = {
  primary: "bg-primary text-primary-foreground shadow-sm hover:bg-primary-hover",
  secondary: "border border-border bg-surface text-fg shadow-sm hover:bg-subtle",
  ghost: "text-fg hover:bg-subtle",
  danger: "bg-danger text-danger-foreground shadow-sm hover:bg-danger/90",
  link: "text-primary underline-offset-4 hover:underline px-0! h-auto!",
} as const;

const sizes = {
  sm: "h-8 gap-1.5 rounded-md px-3 text-xs",
  md: "h-9 gap-2 rounded-md px-4 text-sm",
  lg: "h-10 gap-2 rounded-md px-5 text-sm",
  icon: "size-9 rounded-md",
} as const;

export type ButtonVariant = keyof typeof variants;
export type ButtonSize = keyof typeof sizes;

export interface ButtonProps extends ComponentProps<"button"> {
  variant?: ButtonVariant;
  size?: ButtonSize;
  /** Render the child element (e.g. a router Link) with the button's look. */
  asChild?: boolean;
  /** Shows a spinner and blocks clicks while an action runs. */
  loading?: boolean;
}

export function buttonClasses(variant: ButtonVariant = "primary", size: ButtonSize = "md", className?: string) {
  return cn(
    "inline-flex shrink-0 items-center justify-center whitespace-nowrap font-medium transition-colors select-none",
    "disabled:pointer-events-none disabled:opacity-50 [&_svg]:size-4 [&_svg]:shrink-0",
    focusRing,
    variants[variant],
    sizes[size],
    className,
  );
}

export function Button({ variant, size, asChild, loading, disabled, className, children, type, ref, ...props }: ButtonProps) {
  const classes = buttonClasses(variant, size, className);
  if (asChild) {
    return (
      <Slot ref={ref} className={classes} {...props}>
        {children}
      </Slot>
    );
  }
  return (
    <button ref={ref} type={type ?? "button"} className={classes} disabled={disabled || loading} aria-busy={loading || undefined} {...props}>
      {loading ? <Spinner size="sm" label={null} /> : null}
      {children}
    </button>
  );
}
