import type { FastifyInstance } from "fastify";
import fp from "fastify-plugin";
import { TTL } from "../../idp/provider.ts";
import { AccessChangeFeed } from "./changes.ts";
import { MemberClaimsCache } from "./memberCache.ts";
import type { Claim } from "../../../core/access.ts";
import { RevocationList } from "./revocations.ts";
import { StreamAccessWatch } from "./streamAccess.ts";
import { findMemberAccess, type MemberAccess } from "../../modules/organizations/repository.ts";
import { VerifiedTokenCache } from "./tokenCache.ts";
import { ACCESS_TOKEN_CLOCK_TOLERANCE_SECONDS } from "./tokens.ts";

/**
 * What each node knows about who may do what, kept in step with the database (docs/security.md
 * "Revocation and caches"): verified access tokens, members' claims, revoked grants.
 */
export interface AccessState {
  tokens: VerifiedTokenCache;
  members: MemberClaimsCache<MemberAccess>;
  /** API clients' claims and their organization's policy per (organization, client id): the same cache and the same announcements as members. */
  clients: MemberClaimsCache<MemberAccess>;
  /**
   * A person's claims in every organization (GET /api/profile/user-claims), per person: dropped
   * on every announced change of any organization's memberships or claims (they may be theirs).
   */
  people: MemberClaimsCache<Claim[]>;
  /**
   * What a route reads about an organization's members (the member list), per (organization,
   * what): dropped when that organization's memberships or claims change, at most 2 s old.
   */
  organizations: MemberClaimsCache<unknown>;
  /** Only with the embedded provider (an external one's sign-outs are not seen here). */
  revocations?: RevocationList;
  changes: AccessChangeFeed;
  /** Open event streams, closed when their caller loses access (a member removed, a role changed). */
  streams: StreamAccessWatch;
  /**
   * This node just committed a change of the organization's memberships, claims or policy: its
   * caches follow at once, as they do when the database announces it (the announcement comes
   * later, and under load after the caller's next request).
   */
  organizationChanged(organizationId: string): void;
}

/** Decorates `app.access`; the guard reads it, the identity provider records revocations in it. */
export const accessStatePlugin = fp(
  async function accessState(app: FastifyInstance) {
    const { config, database } = app.ctx;
    const log = app.log.child({ module: "access" });
    const revocations = config.oidc.embedded ? new RevocationList(database.db, TTL.AccessToken + ACCESS_TOKEN_CLOCK_TOLERANCE_SECONDS, log) : undefined;
    const members = new MemberClaimsCache<MemberAccess>(() => changes.listening);
    const clients = new MemberClaimsCache<MemberAccess>(() => changes.listening);
    const people = new MemberClaimsCache<Claim[]>(() => changes.listening);
    const organizations = new MemberClaimsCache<unknown>(() => changes.listening);
    const streams = new StreamAccessWatch((organizationId, sub) => findMemberAccess(database.db, organizationId, sub));
    const organizationChanged = (organizationId: string) => {
      members.dropOrganization(organizationId);
      clients.dropOrganization(organizationId);
      people.clear();
      organizations.dropOrganization(organizationId);
      void streams.changed(organizationId);
    };
    const changes: AccessChangeFeed = new AccessChangeFeed(
      database,
      {
        onChange(change) {
          if (change.kind === "organization") organizationChanged(change.organizationId);
          else if (change.kind === "grant") revocations?.heard(change.grantId);
          else {
            members.clear();
            clients.clear();
            people.clear();
            organizations.clear();
            void streams.recheckAll();
          }
        },
        onGap() {
          members.clear();
          clients.clear();
          people.clear();
          organizations.clear();
          void streams.recheckAll();
          revocations?.gap();
        },
      },
      log,
    );
    app.decorate("access", {
      tokens: new VerifiedTokenCache(ACCESS_TOKEN_CLOCK_TOLERANCE_SECONDS),
      members,
      clients,
      people,
      organizations,
      revocations,
      changes,
      streams,
      organizationChanged,
    } satisfies AccessState);
    app.addHook("onReady", async () => {
      await changes.start();
      await revocations?.start();
    });
    app.addHook("onClose", async () => {
      await changes.stop();
      await revocations?.stop();
    });
  },
  { name: "toolbox-access-state", fastify: "5.x" },
);

declare module "fastify" {
  interface FastifyInstance {
    access: AccessState;
  }
}
