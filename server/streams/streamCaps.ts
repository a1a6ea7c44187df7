/**
 * How many live streams (Server-Sent Events: platform states, the inbox's count, a platform's
 * journal tail, the Trades Blotter) one person, and one organization, may hold open at once on
 * this node (TOOLBOX_MAX_LIVE_STREAMS_PER_PERSON, TOOLBOX_MAX_LIVE_STREAMS_PER_ORGANIZATION;
 * docs/security.md, "Limits per organization"). Each open stream holds a socket, timers, a bus
 * subscription and, for the blotter, rows gathered for it: without a cap, one tenant's scripts
 * could take what the others need. Every stream is counted here, whatever its route, by the one
 * place that opens them (./sse.ts); past a cap the request is answered 429 and nothing is opened.
 *
 * Counted per node: a stream lives on the node that serves it, and what it costs is that node's.
 */
import type { FastifyRequest } from "fastify";
import type { AppContext } from "../context.ts";
import { TooManyError } from "../errors.ts";

export interface LiveStreamLimits {
  perPerson: number;
  perOrganization: number;
}

export class LiveStreamCaps {
  private readonly byPerson = new Map<string, number>();
  private readonly byOrganization = new Map<string, number>();

  constructor(private readonly limits: LiveStreamLimits) {}

  /**
   * Takes a place for one more stream of this person in this organization, or throws 429 with a
   * message saying which cap was reached. Returns the release (safe to call more than once).
   */
  admit(sub: string, organizationId: string): () => void {
    const person = this.byPerson.get(sub) ?? 0;
    if (person >= this.limits.perPerson)
      throw new TooManyError(
        `You already have ${person} live views open (the most allowed is ${this.limits.perPerson}, TOOLBOX_MAX_LIVE_STREAMS_PER_PERSON). Close some tabs or live pages, then try again.`,
        "tooManyLiveStreams",
      );
    const organization = this.byOrganization.get(organizationId) ?? 0;
    if (organization >= this.limits.perOrganization)
      throw new TooManyError(
        `This organization already has ${organization} live views open (the most allowed is ${this.limits.perOrganization}, TOOLBOX_MAX_LIVE_STREAMS_PER_ORGANIZATION). Try again when some are closed.`,
        "tooManyLiveStreams",
      );
    this.byPerson.set(sub, person + 1);
    this.byOrganization.set(organizationId, organization + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      decrement(this.byPerson, sub);
      decrement(this.byOrganization, organizationId);
    };
  }

  /** Open streams of a person and of an organization (for tests and the health of a node). */
  count(key: { sub: string } | { organizationId: string }): number {
    return "sub" in key ? (this.byPerson.get(key.sub) ?? 0) : (this.byOrganization.get(key.organizationId) ?? 0);
  }
}

function decrement(counts: Map<string, number>, key: string): void {
  const n = (counts.get(key) ?? 1) - 1;
  if (n <= 0) counts.delete(key);
  else counts.set(key, n);
}

const capsOf = new WeakMap<AppContext, LiveStreamCaps>();

/** The node's caps: one per app (its context), shared by every route that opens a stream. */
export function liveStreamCaps(ctx: AppContext): LiveStreamCaps {
  let caps = capsOf.get(ctx);
  if (!caps) capsOf.set(ctx, (caps = new LiveStreamCaps(ctx.config.liveStreams)));
  return caps;
}

/** Admits the stream of an organization-scoped request (the guard has set who and where). */
export function admitLiveStream(request: FastifyRequest): () => void {
  return liveStreamCaps(request.server.ctx).admit(request.auth.sub, request.organization.id);
}
