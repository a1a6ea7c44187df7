import { useState } from "react";
import { CONNECTION_FIELDS, type PlatformFormErrors, type PlatformFormField, type PlatformFormValues } from "./platformForm";

/** Form values and their messages; typing in a field clears its message (it is being fixed). */
export function usePlatformForm(initial: PlatformFormValues | (() => PlatformFormValues)) {
  const [values, setValues] = useState(initial);
  const [errors, setErrors] = useState<PlatformFormErrors>({});
  /** Bumped whenever a connection field changes: a test result is only true for what was tested. */
  const [connectionVersion, setConnectionVersion] = useState(0);

  function set<K extends PlatformFormField>(field: K, value: PlatformFormValues[K]) {
    setValues((v) => ({ ...v, [field]: value }));
    setErrors((e) => (e[field] ? { ...e, [field]: undefined } : e));
    if (CONNECTION_FIELDS.includes(field) || field === "type") setConnectionVersion((n) => n + 1);
  }

  return { values, setValues, errors, setErrors, set, connectionVersion };
}

export type PlatformForm = ReturnType<typeof usePlatformForm>;
