import type { Claim } from "../../../core/access.ts";

/**
 * Longest a cached membership is used without asking the database again. Changes normally drop
 * entries at once (the database announces them, changes.ts); this bounds staleness should an
 * announcement ever be lost without the connection noticing.
 */
export const MEMBER_CLAIMS_MAX_AGE_MS = 2000;
/** Memberships kept; beyond this the cache starts over (it refills from the database). */
const MAX_ENTRIES = 20_000;

interface Entry {
  claims: readonly Claim[];
  loadedAt: number;
}

/**
 * The caller's claims per (organization, person), for the guard: one database round trip per
 * member every couple of seconds instead of one per request. Only memberships are cached, never
 * "not a member". A change of an organization's memberships or claims drops that organization's
 * entries; a load that overlapped a change is not stored (it may have read the old rows).
 */
export class MemberClaimsCache {
  private readonly byOrganization = new Map<string, Map<string, Entry>>();
  private size = 0;
  /** Bumped on every change: a load that started before it must not be stored. */
  private generation = 0;

  /** @param usable false while changes cannot be heard (then every request asks the database). */
  constructor(private readonly usable: () => boolean) {}

  /** The member's claims (null: not a member); `fresh` skips the cached entry and replaces it. */
  async claims(organizationId: string, sub: string, load: () => Promise<Claim[] | null>, opts: { fresh?: boolean } = {}): Promise<readonly Claim[] | null> {
    if (!this.usable()) return load();
    const entry = opts.fresh ? undefined : this.byOrganization.get(organizationId)?.get(sub);
    if (entry && Date.now() - entry.loadedAt < MEMBER_CLAIMS_MAX_AGE_MS) return entry.claims;
    const generation = this.generation;
    const loadedAt = Date.now();
    const claims = await load();
    if (claims === null) {
      this.forget(organizationId, sub);
    } else if (generation === this.generation && this.usable()) {
      this.store(organizationId, sub, { claims: Object.freeze(claims.map((c) => Object.freeze({ ...c }))), loadedAt });
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

  private store(organizationId: string, sub: string, entry: Entry) {
    if (this.size >= MAX_ENTRIES) this.clear();
    let members = this.byOrganization.get(organizationId);
    if (!members) this.byOrganization.set(organizationId, (members = new Map<string, Entry>()));
    if (!members.has(sub)) this.size++;
    members.set(sub, entry);
  }

  private forget(organizationId: string, sub: string) {
    const members = this.byOrganization.get(organizationId);
    if (members?.delete(sub)) this.size--;
  }
}
