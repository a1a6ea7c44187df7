import { countryFromText, countryLabel, countryList, isCountryCode } from "@core/schemas/customers";
import { useEffect, useId, useRef, useState, type ComponentProps } from "react";
import { Input } from "~/ui/Input";

/**
 * A country, picked from the ISO 3166-1 list by typing part of its name or its code: a text box
 * with the browser's own suggestion list (a native combobox, searchable and accessible), names
 * from Intl.DisplayNames. It writes "Sweden (SE)" and hands back the code ("SE"), "" when empty,
 * or the text as typed when it names no country (for the form to refuse).
 */
export function CountryInput({
  value,
  onValueChange,
  validOnly = false,
  ...props
}: {
  value: string;
  onValueChange: (codeOrText: string) => void;
  /** Hand back "" rather than text that names no country (a filter, which has no error to show). */
  validOnly?: boolean;
} & Omit<ComponentProps<"input">, "value" | "onChange" | "list">) {
  const listId = useId();
  const [text, setText] = useState(() => (isCountryCode(value) ? countryLabel(value) : value));
  // What the typing last handed back: a value set from elsewhere (a reset, the URL) shows as its
  // label, while the person's own typing stays as typed.
  const reported = useRef(value);
  useEffect(() => {
    if (value !== reported.current) {
      reported.current = value;
      setText(isCountryCode(value) ? countryLabel(value) : value);
    }
  }, [value]);
  return (
    <>
      <Input
        {...props}
        value={text}
        list={listId}
        autoComplete="off"
        onChange={(e) => {
          setText(e.target.value);
          const code = countryFromText(e.target.value);
          reported.current = validOnly && !isCountryCode(code) ? "" : code;
          onValueChange(reported.current);
        }}
        onBlur={(e) => {
          const code = countryFromText(text);
          if (isCountryCode(code)) setText(countryLabel(code));
          props.onBlur?.(e);
        }}
      />
      <datalist id={listId}>
        {countryList().map((c) => (
          <option key={c.code} value={countryLabel(c.code)} />
        ))}
      </datalist>
    </>
  );
}
