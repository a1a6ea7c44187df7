import type { PlatformPatch } from "../platformApi";
import { CONNECTION_FIELDS, connectionFrom, type PlatformFormValues } from "../form/platformForm";

/**
 * Only what changed goes to PATCH: an untouched connection is not sent (sending it would
 * reconnect the platform for nothing), and an empty secret field is left out so the stored
 * password or key stays.
 */
export function platformPatchFrom(saved: PlatformFormValues, edited: PlatformFormValues): PlatformPatch {
  const patch: PlatformPatch = {};
  if (edited.name.trim() !== saved.name.trim()) patch.name = edited.name.trim();
  if (edited.timeZone !== saved.timeZone) patch.timeZone = edited.timeZone;
  const connectionChanged = CONNECTION_FIELDS.some((field) => {
    if (edited.source === "simulated" && !["source", "accounts", "tradeRate", "seed"].includes(field)) return false;
    return String(edited[field]).trim() !== String(saved[field]).trim();
  });
  if (connectionChanged) patch.connection = connectionFrom(edited);
  return patch;
}
