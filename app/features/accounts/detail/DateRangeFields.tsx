import { Field } from "~/ui/Field";
import { DateInput } from "~/ui/DateInput";
import { rangeToIso, type DayRange } from "./dateRange";

export function DateRangeFields({ value, onChange }: { value: DayRange; onChange: (range: DayRange) => void }) {
  const invalid = rangeToIso(value) === null;
  return (
    <div className="flex flex-wrap items-start gap-3">
      <Field label="From" className="w-40">
        <DateInput value={value.from} max={value.to} onChange={(e) => onChange({ ...value, from: e.target.value })} className="h-8" />
      </Field>
      <Field label="To" className="w-40" error={invalid ? "Ends before it starts" : undefined}>
        <DateInput value={value.to} min={value.from} onChange={(e) => onChange({ ...value, to: e.target.value })} className="h-8" />
      </Field>
    </div>
  );
}
