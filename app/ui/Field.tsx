import { Slot } from "@radix-ui/react-slot";
import { useId, type ReactElement, type ReactNode } from "react";
import { cn } from "./cn";
import { Label } from "./Label";

interface FieldProps {
  label: ReactNode;
  /** Help under the control, read by screen readers with it. */
  description?: ReactNode;
  /** Shown in red under the control; marks the control invalid. */
  error?: ReactNode;
  className?: string;
  /** One control (Input, Select trigger, Switch …); it receives id and the aria wiring. */
  children: ReactElement;
}

/** Label, control, help and error text, wired together for assistive technology. */
export function Field({ label, description, error, className, children }: FieldProps) {
  const id = useId();
  const descriptionId = description ? `${id}-description` : undefined;
  const errorId = error ? `${id}-error` : undefined;
  const describedBy = [descriptionId, errorId].filter(Boolean).join(" ") || undefined;
  return (
    <div className={cn("grid gap-1.5", className)}>
      <Label htmlFor={id}>{label}</Label>
      <Slot id={id} aria-describedby={describedBy} aria-invalid={error ? true : undefined}>
        {children}
      </Slot>
      {description ? (
        <p id={descriptionId} className="text-xs text-muted">
          {description}
        </p>
      ) : null}
      {error ? (
        <p id={errorId} className="text-xs font-medium text-danger">
          {error}
        </p>
      ) : null}
    </div>
  );
}
