import type { FastifyRequest } from "fastify";
import { hasModuleAccess } from "../../../core/access.ts";
import type { MemberAccess } from "../../modules/organizations/repository.ts";
import { policyRefusal, type PolicySubject } from "./policy.ts";

interface Watched {
  sub: string;
  organizationId: string;
  permission?: { module: Parameters<typeof hasModuleAccess>[2]; value: Parameters<typeof hasModuleAccess>[3] };
  /** The request's address and sign-in, for the organization's security policy. */
  subject: PolicySubject;
  close: () => void;
}

/**
 * Long-lived answers (Server-Sent Events) outlive the guard's one check at their start. Each
 * registers here; when an organization's memberships or claims change (the database announces it,
 * changes.ts, or the node that wrote it says so at once), its streams' callers are checked again
 * and the stream of anyone no longer a member, without the route's permission, or excluded by
 * the organization's security policy (an allow-list without their address, require two-factor,
 * a shorter session lifetime) is closed.
 */
export class StreamAccessWatch {
  private readonly byOrganization = new Map<string, Set<Watched>>();

  constructor(private readonly loadAccess: (organizationId: string, sub: string) => Promise<MemberAccess | null>) {}

  /** Watches the stream of an organization-scoped request the guard let through; returns the unwatch. */
  watch(request: FastifyRequest, close: () => void): () => void {
    const organizationId = request.organization.id;
    const subject: PolicySubject = { ip: request.ip, auth: { amr: request.auth.amr, authTime: request.auth.authTime } };
    const entry: Watched = { sub: request.auth.sub, organizationId, permission: request.routeOptions.config.permission, subject, close };
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
    let member: MemberAccess | null;
    try {
      member = await this.loadAccess(w.organizationId, w.sub);
    } catch {
      return; // The database is not answering: the stream's own lifetime still bounds it.
    }
    const allowed =
      member !== null &&
      (!w.permission || hasModuleAccess(member.claims, w.organizationId, w.permission.module, w.permission.value)) &&
      !policyRefusal(w.subject, w.organizationId, member, {});
    if (!allowed) w.close();
  }
}
