/**
 * The version of a configuration object (a group, a symbol) as an editor read it: a content hash
 * of the normalized object. MT4 and MT5 keep no version or change counter on their configuration
 * records, and Match-Trader's Broker API has none either, so "has the server's object changed
 * since I read it" is answered by hashing what was read and what the server holds now: any field
 * that differs changes the version. The platform's own identifiers (`native`) are left out: they
 * are not configuration. Pure: the same object gives the same version on the server and in the
 * browser. Not a security hash (FNV-1a, 64 bits): it tells changes apart, nothing more.
 */

/** The object as canonical JSON: keys sorted at every level, `native` left out at the top. */
export function canonicalConfig(value: object): string {
  const { native: _native, ...rest } = value as Record<string, unknown>;
  return canonical(rest);
}

function canonical(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value ?? null);
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(",")}}`;
}

const FNV_OFFSET = 0xcbf29ce484222325n;
const FNV_PRIME = 0x100000001b3n;
const MASK_64 = (1n << 64n) - 1n;

/** FNV-1a over the UTF-16 code units of `text`, 64 bits, as 16 hex digits. */
function fnv1a64(text: string): string {
  let hash = FNV_OFFSET;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    hash ^= BigInt(unit & 0xff);
    hash = (hash * FNV_PRIME) & MASK_64;
    hash ^= BigInt(unit >>> 8);
    hash = (hash * FNV_PRIME) & MASK_64;
  }
  return hash.toString(16).padStart(16, "0");
}

/** "c1-" and 16 hex digits; equal objects (whatever their key order) give equal versions. */
export function configVersion(value: object): string {
  return `c1-${fnv1a64(canonicalConfig(value))}`;
}
