import type { FastifyRequest } from "fastify";
import { hasModuleAccess, type Claim } from "../../../core/access.ts";

interface Watched {
  sub: string;
  organizationId: string;
  permission?: { module: Parameters<typeof hasModuleAccess>[2]; value: Parameters<typeof hasModuleAccess>[3] };
  close: () => void;
}

/**
 * Long-lived answers (Server-Sent Events) outlive the guard's one check at their start. Each
 * registers here; when an organization's memberships or claims change (the database announces it,
 * changes.ts, or the node that wrote it says so at once), its streams' callers are checked again
 * and the stream of anyone no longer a member, or without the route's permission, is closed.
 */
export class StreamAccessWatch {
  private readonly byOrganization = new Map<string, Set<Watched>>();

  constructor(private readonly loadClaims: (organizationId: string, sub: string) => Promise<Claim[] | null>) {}

  /** Watches the stream of an organization-scoped request the guard let through; returns the unwatch. */
  watch(request: FastifyRequest, close: () => void): () => void {
    const organizationId = request.organization.id;
    const entry: Watched = { sub: request.auth.sub, organizationId, permission: request.routeOptions.config.permission, close };
    let set = this.byOrganization.get(organizationId);
    if (!set) this.byOrganization.set(organizationId, (set = new Set()));
    set.add(entry);
    return () => {
      set.delete(entry);
      if (set.size === 0 && this.byOrganization.get(organizationId) === set) this.byOrganization.delete(organizationId);
    };
  }

  /** Memberships or claims of this organization changed: close the streams of those who lost access. */
  async changed(organizationId: string): Promise<void> {
    const set = this.byOrganization.get(organizationId);
    if (!set) return;
    await Promise.all([...set].map((w) => this.recheck(w)));
  }

  /** Changes may have been missed: check every stream again. */
  async recheckAll(): Promise<void> {
    await Promise.all([...this.byOrganization.keys()].map((id) => this.changed(id)));
  }

  get size(): number {
    let n = 0;
    for (const set of this.byOrganization.values()) n += set.size;
    return n;
  }

  private async recheck(w: Watched): Promise<void> {
    let claims: Claim[] | null;
    try {
      claims = await this.loadClaims(w.organizationId, w.sub);
    } catch {
      return; // The database is not answering: the stream's own lifetime still bounds it.
    }
    const allowed = claims !== null && (!w.permission || hasModuleAccess(claims, w.organizationId, w.permission.module, w.permission.value));
    if (!allowed) w.close();
  }
}
