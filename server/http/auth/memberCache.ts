import type { Claim } from "../../../core/access.ts";

/**
 * Longest a cached membership is used without asking the database again. Changes normally drop
 * entries at once (the database announces them, changes.ts); this bounds staleness should an
 * announcement ever be lost without the connection noticing.
 */
export const MEMBER_CLAIMS_MAX_AGE_MS = 2000;
/** Memberships kept; beyond this the cache starts over (it refills from the database). */
const MAX_ENTRIES = 20_000;

interface Entry<T> {
  value: T;
  loadedAt: number;
}

/** Cached values are shared by every request: none may change them. */
function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === "object" && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

/**
 * The caller's access per (organization, person) — claims, and the organization's security policy
 * (findMemberAccess) — for the guard: one database round trip per member every couple of seconds
 * instead of one per request. Only memberships are cached, never
 * "not a member". A change of an organization's memberships, claims or policy drops that organization's
 * entries; a load that overlapped a change is not stored (it may have read the old rows).
 */
export class MemberClaimsCache<T = readonly Claim[]> {
  private readonly byOrganization = new Map<string, Map<string, Entry<T>>>();
  private size = 0;
  /** Bumped on every change: a load that started before it must not be stored. */
  private generation = 0;

  /** @param usable false while changes cannot be heard (then every request asks the database). */
  constructor(private readonly usable: () => boolean) {}

  /** The member's access (null: not a member); `fresh` skips the cached entry and replaces it. */
  async claims(organizationId: string, sub: string, load: () => Promise<T | null>, opts: { fresh?: boolean } = {}): Promise<T | null> {
    if (!this.usable()) return load();
    const entry = opts.fresh ? undefined : this.byOrganization.get(organizationId)?.get(sub);
    if (entry && Date.now() - entry.loadedAt < MEMBER_CLAIMS_MAX_AGE_MS) return entry.value;
    const generation = this.generation;
    const loadedAt = Date.now();
    const claims = await load();
    if (claims === null) {
      this.forget(organizationId, sub);
    } else if (generation === this.generation && this.usable()) {
      this.store(organizationId, sub, { value: deepFreeze(structuredClone(claims)), loadedAt });
    }
    return claims;
  }

  /** Memberships or claims of this organization changed. */
  dropOrganization(organizationId: string): void {
    this.generation++;
    const members = this.byOrganization.get(organizationId);
    if (!members) return;
    this.size -= members.size;
    this.byOrganization.delete(organizationId);
  }

  clear(): void {
    this.generation++;
    this.byOrganization.clear();
    this.size = 0;
  }

  private store(organizationId: string, sub: string, entry: Entry<T>) {
    if (this.size >= MAX_ENTRIES) this.clear();
    let members = this.byOrganization.get(organizationId);
    if (!members) this.byOrganization.set(organizationId, (members = new Map<string, Entry<T>>()));
    if (!members.has(sub)) this.size++;
    members.set(sub, entry);
  }

  private forget(organizationId: string, sub: string) {
    const members = this.byOrganization.get(organizationId);
    if (members?.delete(sub)) this.size--;
  }
}
