/**
 * The one row a statement is sure to give back: an INSERT … RETURNING, an aggregate, or an UPDATE of
 * a row the transaction holds locked. Its absence is a bug in Toolbox (or a broken database), never
 * a user's mistake, so it fails loudly with what was asked instead of passing `undefined` on.
 */
export function onlyRow<T>(rows: readonly T[], what: string): T {
  const [row] = rows;
  if (row === undefined) throw new Error(`The database returned no row for ${what}.`);
  return row;
}

/** `execute` answers differ between node-postgres and PGlite; both carry `rows`. */
export function rowsOf<T>(result: unknown): T[] {
  return (result as { rows?: T[] }).rows ?? [];
}
