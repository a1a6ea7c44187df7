import { useState, type ComponentProps } from "react";
import { csvTime, parseDate, parseDateTime } from "@core/format";
import { Input } from "./Input";
import { useFormat } from "./format";

type InputProps = Omit<ComponentProps<"input">, "type" | "value" | "defaultValue" | "onChange" | "min" | "max">;

/**
 * A day typed as the member reads dates (their display format, core/format.ts: "27/11/2026",
 * "11/27/2026", "27.11.2026"), not as the browser's native date box shows it. The value is
 * "YYYY-MM-DD", as a native date input's; `onChange` gets it the same way (empty while unreadable).
 */
export function DateInput({
  value,
  onChange,
  min,
  max,
  ...props
}: InputProps & { value: string; onChange: (event: { target: { value: string } }) => void; min?: string; max?: string }) {
  const format = useFormat();
  const shown = (ymd: string) => (ymd ? format.isoDate(ymd) : "");
  const [text, setText] = useState(shown(value));
  // A value set from outside (a preset, the URL) replaces what is typed; React's "adjust state while rendering".
  const [seen, setSeen] = useState(value);
  if (value !== seen) {
    setSeen(value);
    if (parseDate(text, format.datePattern) !== value) setText(shown(value));
  }
  const parsed = text.trim() ? parseDate(text, format.datePattern) : "";
  const outOfRange = parsed && ((min && parsed < min) || (max && parsed > max));
  return (
    <Input
      inputMode="numeric"
      placeholder={format.datePattern.placeholder}
      title={`A day as ${format.datePattern.placeholder}`}
      value={text}
      aria-invalid={parsed === null || outOfRange ? true : props["aria-invalid"]}
      onChange={(e) => {
        setText(e.target.value);
        const next = e.target.value.trim() ? parseDate(e.target.value, format.datePattern) : "";
        if (next !== null && next !== value) onChange({ target: { value: next } });
      }}
      onBlur={() => parsed && setText(shown(parsed))}
      {...props}
    />
  );
}

/**
 * A date and time for a form (the audit log's range), typed as "27/11/2026 14:03" in the member's
 * format and zone. The form reads the hidden field `name`: ISO UTC, empty when blank or unreadable.
 */
export function DateTimeInput({ name, defaultValue, ...props }: Omit<InputProps, "name"> & { name: string; defaultValue: string | null }) {
  const format = useFormat();
  const initial = defaultValue && !Number.isNaN(Date.parse(defaultValue)) ? toText(defaultValue) : "";
  const [text, setText] = useState(initial);
  const iso = text.trim() ? parseDateTime(text, format.datePattern, format.timeZone) : "";
  function toText(isoValue: string) {
    const wall = csvTime(isoValue, format.timeZone); // "2026-11-27 14:03:07"
    return `${format.isoDate(wall.slice(0, 10))} ${wall.slice(11, 16)}`;
  }
  return (
    <>
      <Input
        placeholder={`${format.datePattern.placeholder} hh:mm`}
        title={`Date and time as ${format.datePattern.placeholder} hh:mm, in ${format.timeZone}`}
        value={text}
        aria-invalid={iso === null ? true : props["aria-invalid"]}
        onChange={(e) => setText(e.target.value)}
        {...props}
      />
      <input type="hidden" name={name} value={iso ?? ""} />
    </>
  );
}
