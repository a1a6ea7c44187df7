/**
 * What a failed statement says about itself. Drizzle wraps the driver's error (pg's, or PGlite's
 * from its thread) as `cause`, which carries PostgreSQL's five-character SQLSTATE.
 */
export function databaseErrorCode(err: unknown): string | undefined {
  if (!err || typeof err !== "object") return undefined;
  for (const candidate of [(err as { cause?: unknown }).cause, err]) {
    const code = (candidate as { code?: unknown } | undefined)?.code;
    if (typeof code === "string" && /^[0-9A-Z]{5}$/.test(code)) return code;
  }
  return undefined;
}

/** The transaction lost a race with another one and may simply be run again: deadlock, serialization failure. */
export function isTransientConflict(err: unknown): boolean {
  const code = databaseErrorCode(err);
  return code === "40P01" || code === "40001";
}

/** A row it refers to is gone (its platform or organization was deleted meanwhile). */
export function isForeignKeyViolation(err: unknown): boolean {
  return databaseErrorCode(err) === "23503";
}
