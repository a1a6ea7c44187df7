/** IANA time zones, checked with the runtime's own Intl data (no offsets, no abbreviations invented here). */

/** The canonical spelling of an IANA time zone name, or null when it is not one. */
export function normalizeTimeZone(name: string): string | null {
  const text = name.trim();
  // Intl also accepts offsets ("+02:00") on newer runtimes; a server's zone must be a named one.
  if (text === "" || /^[+\-\d]/.test(text)) return null;
  let resolved: string;
  try {
    resolved = new Intl.DateTimeFormat("en-US", { timeZone: text }).resolvedOptions().timeZone;
  } catch {
    return null;
  }
  // Keep the name as given (Intl maps "EST" to "America/Panama"), only fixing its case.
  return resolved.toLowerCase() === text.toLowerCase() ? resolved : text;
}

export function isTimeZone(name: string): boolean {
  return normalizeTimeZone(name) !== null;
}
