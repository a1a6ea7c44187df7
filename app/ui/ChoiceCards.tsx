import type { ReactNode } from "react";
import { cn } from "~/ui/cn";

export interface Choice<V extends string> {
  value: V;
  label: ReactNode;
  description?: ReactNode;
  icon?: ReactNode;
}

/**
 * A radio group drawn as cards (native radios: arrow keys move between them, the group is
 * announced with its legend).
 */
export function ChoiceCards<V extends string>({
  legend,
  name,
  value,
  onChange,
  choices,
  disabled,
  className,
}: {
  legend: string;
  name: string;
  value: V;
  onChange: (value: V) => void;
  choices: readonly Choice<V>[];
  disabled?: boolean;
  className?: string;
}) {
  return (
    <fieldset className="grid gap-1.5" disabled={disabled}>
      <legend className="mb-1.5 text-sm font-medium">{legend}</legend>
      <div className={cn("grid gap-2 sm:grid-cols-3", className)}>
        {choices.map((c) => (
          <label
            key={c.value}
            className={cn(
              "relative flex cursor-pointer gap-3 rounded-md border bg-surface p-3 text-sm transition-colors",
              "has-[:focus-visible]:ring-2 has-[:focus-visible]:ring-ring has-[:disabled]:cursor-not-allowed has-[:disabled]:opacity-60",
              value === c.value ? "border-primary bg-primary/5" : "border-border hover:bg-subtle",
            )}
          >
            <input
              type="radio"
              name={name}
              value={c.value}
              checked={value === c.value}
              onChange={() => onChange(c.value)}
              className="mt-0.5 size-4 shrink-0 accent-primary"
            />
            <span className="grid content-start gap-0.5">
              <span className="flex items-center gap-2 font-medium">
                {c.icon}
                {c.label}
              </span>
              {c.description ? <span className="text-xs text-muted">{c.description}</span> : null}
            </span>
          </label>
        ))}
      </div>
    </fieldset>
  );
}
