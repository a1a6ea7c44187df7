import { useEffect, useState } from "react";

/** `value`, once it has stopped changing for `delayMs` (typing in a filter sends one request, not ten). */
export function useDebounced<T>(value: T, delayMs = 350): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), delayMs);
    return () => clearTimeout(timer);
  }, [value, delayMs]);
  return settled;
}
