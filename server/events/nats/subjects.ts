/**
 * Subjects on NATS: `<prefix>.<organizationId>.<platformId>.<type>`, so that a subscription for
 * one organization asks the server for that organization's subjects only, and another
 * organization's events never reach it. docs/events.md, "Subjects".
 */
import type { BusFilter, DomainEvent } from "../types.ts";

/** A subject token may not hold `.`, wildcards or spaces; ids are UUIDs and types are names. */
const TOKEN = /^[A-Za-z0-9_-]+$/;

export function subjectOf(prefix: string, event: DomainEvent): string {
  if (!TOKEN.test(event.organizationId) || !TOKEN.test(event.platformId))
    throw new Error(`An event's organization and platform ids must be plain tokens to become a NATS subject (${event.type}).`);
  return `${prefix}.${event.organizationId}.${event.platformId}.${event.type}`;
}

/**
 * The one subject (with wildcards) the server filters on for a subscription: exact where the
 * filter names one organization, platform or type, `*` where it names several or none. What the
 * wildcard lets through is narrowed again in the client (bus.ts `matches`). One subject because
 * several filter subjects per consumer need nats-server 2.10 (the Debian server here is 2.9).
 */
export function filterSubjectOf(prefix: string, filter: BusFilter): string {
  const one = (values: readonly string[] | undefined) => (values?.length === 1 && TOKEN.test(values[0]!) ? values[0]! : "*");
  const org = filter.organizationId !== undefined && TOKEN.test(filter.organizationId) ? filter.organizationId : "*";
  return `${prefix}.${org}.${one(filter.platformIds)}.${one(filter.types)}`;
}
