import { FilterX } from "lucide-react";
import type { ReactNode } from "react";
import { useTradePlatforms } from "~/profile";
import { Button } from "~/ui/Button";
import { Field } from "~/ui/Field";
import { Input } from "~/ui/Input";
import { Select } from "~/ui/Select";
import { activeFilterCount, EMPTY_FILTERS, invalidRangeFields, type AccountFilters } from "../accountFilters";

const ALL = "all";

/** The /users filters (a search landmark). Values apply as typed, debounced by the page. */
export function AccountFiltersBar({ filters, onChange }: { filters: AccountFilters; onChange: (next: AccountFilters) => void }) {
  const platforms = useTradePlatforms();
  const set = (key: keyof AccountFilters) => (value: string) => onChange({ ...filters, [key]: value });
  const invalid = new Set(invalidRangeFields(filters));
  const count = activeFilterCount(filters);
  const text = (
    key: keyof AccountFilters,
    label: string,
    props: { placeholder?: string; inputMode?: "numeric" | "decimal" | "email"; className?: string } = {},
  ) => (
    <Field
      label={label}
      className={props.className}
      error={
        invalid.has(key as never)
          ? key.endsWith("Min") && filters[key].trim() && /^-?[\d,]+(\.\d{1,2})?$/.test(filters[key].trim())
            ? "Above the maximum"
            : "Not an amount"
          : undefined
      }
    >
      <Input
        type="search"
        value={filters[key]}
        onChange={(e) => set(key)(e.target.value)}
        placeholder={props.placeholder}
        inputMode={props.inputMode}
        autoComplete="off"
        spellCheck={false}
        className="h-8"
      />
    </Field>
  );
  return (
    <div
      role="search"
      aria-label="Filter trading accounts"
      className="grid items-start gap-3 rounded-lg border border-border bg-surface p-3 sm:grid-cols-2 lg:grid-cols-6"
    >
      <Field label="Platform" className="lg:col-span-1">
        <Select
          value={filters.platformId || ALL}
          onValueChange={(v) => set("platformId")(v === ALL ? "" : v)}
          options={[{ value: ALL, label: "All platforms" }, ...platforms.map((p) => ({ value: p.id, label: p.name }))]}
          className="h-8"
        />
      </Field>
      {text("login", "Login", { placeholder: "100234 or 1002*" })}
      {text("groupMask", "Group mask", { placeholder: "e.g. real\\*, !*test*" })}
      {text("name", "Name")}
      {text("email", "Email", { inputMode: "email" })}
      <div className="flex items-end self-end">
        <Button variant="ghost" size="sm" onClick={() => onChange(EMPTY_FILTERS)} disabled={count === 0} className="w-full justify-start lg:justify-center">
          <FilterX aria-hidden />
          Clear filters{count ? ` (${count})` : ""}
        </Button>
      </div>
      <Range label="Balance">
        {text("balanceMin", "Balance from", { inputMode: "decimal", placeholder: "Min" })}
        {text("balanceMax", "Balance to", { inputMode: "decimal", placeholder: "Max" })}
      </Range>
      <Range label="Equity">
        {text("equityMin", "Equity from", { inputMode: "decimal", placeholder: "Min" })}
        {text("equityMax", "Equity to", { inputMode: "decimal", placeholder: "Max" })}
      </Range>
    </div>
  );
}

function Range({ label, children }: { label: string; children: ReactNode }) {
  return (
    <fieldset className="grid grid-cols-2 items-start gap-2 sm:col-span-1 lg:col-span-2">
      <legend className="sr-only">{label} range</legend>
      {children}
    </fieldset>
  );
}
