/**
 * Quotas: sign-up is open, so no one organization (and no one person) may take what the others
 * need — memory and event-loop time for simulated servers, rows for preferences. Each quota is an
 * environment variable (validated in server/config.ts, documented in docs/configuration.md and
 * docs/security.md). Over a quota the API answers 422 with a message that names the limit and its
 * variable.
 *
 * Race-free: a quota is counted inside the transaction that would exceed it, after locking the
 * row the count belongs to (`lockForQuota`), so two concurrent creations cannot both see room for
 * one.
 */
import { and, eq, sql } from "drizzle-orm";
import type { Db } from "./db/client.ts";
import { memberships, organizations, users } from "./db/tables/organizations.ts";
import { RefusedError } from "./errors.ts";

export interface Quotas {
  /** Simulated trade platforms per organization (enabled or not: a disabled one's server keeps running). */
  simulatedPlatforms: number;
  /** Accounts of all the organization's simulated platforms together. */
  simulatedAccounts: number;
  /** Trading actions per second of all the organization's simulated platforms together. */
  simulatedTradeRate: number;
  /** Organizations one person may create (their first, made at first sign-in, included). */
  organizationsPerPerson: number;
  /** Preferences one member keeps in one organization. */
  preferenceKeys: number;
  /** Customers of one organization (what its imports, exports and lists cost grows with it). */
  customers: number;
}

/**
 * Enough for the demo organization (three platforms of a few hundred accounts, and room to add
 * two) and for trying Toolbox at scale (one 100,000-account server, plus small ones). The accounts
 * and the trade rate are what cost memory and event-loop time: three full-size servers trading
 * 10,000 times a second each took 1.45 GB and stalled the event loop for 8 s.
 */
export const QUOTA_DEFAULTS: Quotas = {
  simulatedPlatforms: 5,
  simulatedAccounts: 150_000,
  simulatedTradeRate: 10_000,
  organizationsPerPerson: 5,
  preferenceKeys: 100,
  customers: 250_000,
};

export const QUOTA_VARIABLES: Record<keyof Quotas, string> = {
  simulatedPlatforms: "TOOLBOX_MAX_SIMULATED_PLATFORMS",
  simulatedAccounts: "TOOLBOX_MAX_SIMULATED_ACCOUNTS",
  simulatedTradeRate: "TOOLBOX_MAX_SIMULATED_TRADE_RATE",
  organizationsPerPerson: "TOOLBOX_MAX_ORGANIZATIONS_PER_PERSON",
  preferenceKeys: "TOOLBOX_MAX_PREFERENCE_KEYS",
  customers: "TOOLBOX_MAX_CUSTOMERS",
};

type Tx = Parameters<Parameters<Db["transaction"]>[0]>[0];
type Executor = Db | Tx;

/**
 * Locks the row a quota is counted for until the transaction ends: concurrent transactions that
 * count the same quota wait here, then count what the first one added. `for no key update`, so
 * rows that merely refer to the organization or person (audit records, mirrored accounts) are
 * not held up meanwhile.
 */
export async function lockForQuota(
  tx: Executor,
  row: { organizationId: string; userSub?: undefined } | { organizationId?: undefined; userSub: string } | { organizationId: string; userSub: string },
): Promise<void> {
  const one = { one: sql`1` };
  if (row.organizationId !== undefined && row.userSub !== undefined)
    await tx
      .select(one)
      .from(memberships)
      .where(and(eq(memberships.organizationId, row.organizationId), eq(memberships.userSub, row.userSub)))
      .for("no key update");
  else if (row.organizationId !== undefined) await tx.select(one).from(organizations).where(eq(organizations.id, row.organizationId)).for("no key update");
  else await tx.select(one).from(users).where(eq(users.sub, row.userSub)).for("no key update");
}

const count = (n: number) => n.toLocaleString("en-US");

/** What an organization's simulated platforms would use once a change is made. */
export interface SimulatedUse {
  platforms: number;
  accounts: number;
  tradeRate: number;
}

export type SimulatedServerUse = Omit<SimulatedUse, "platforms">;

/**
 * Refuses (422) a platform that would take the organization's simulated platforms past a quota.
 * `others`: the use of the organization's other simulated platforms; `next`: this platform's once
 * saved (null when it is not simulated); `previous`: its use until now (null when new or not
 * simulated). Only growth is refused: after a quota is lowered, existing platforms may still be
 * changed as long as they do not ask for more.
 */
export function requireSimulatedQuota(quotas: Quotas, others: SimulatedUse, next: SimulatedServerUse | null, previous: SimulatedServerUse | null = null): void {
  if (!next) return;
  if (!previous && others.platforms + 1 > quotas.simulatedPlatforms)
    throw new RefusedError(
      `This organization already has ${count(others.platforms)} simulated platform${others.platforms === 1 ? "" : "s"}, the most allowed (${QUOTA_VARIABLES.simulatedPlatforms}).`,
    );
  const accounts = others.accounts + next.accounts;
  if (accounts > quotas.simulatedAccounts && next.accounts > (previous?.accounts ?? 0))
    throw new RefusedError(
      `This organization's simulated platforms would hold ${count(accounts)} accounts together; at most ${count(quotas.simulatedAccounts)} are allowed (${QUOTA_VARIABLES.simulatedAccounts}).`,
    );
  const rate = others.tradeRate + next.tradeRate;
  if (rate > quotas.simulatedTradeRate && next.tradeRate > (previous?.tradeRate ?? 0))
    throw new RefusedError(
      `This organization's simulated platforms would trade ${count(rate)} times a second together; at most ${count(quotas.simulatedTradeRate)} are allowed (${QUOTA_VARIABLES.simulatedTradeRate}).`,
    );
}

export function requireOrganizationQuota(quotas: Quotas, created: number): void {
  if (created + 1 > quotas.organizationsPerPerson)
    throw new RefusedError(
      `You have already created ${count(created)} organization${created === 1 ? "" : "s"}, the most allowed (${QUOTA_VARIABLES.organizationsPerPerson}).`,
    );
}

export function requirePreferenceQuota(quotas: Quotas, kept: number): void {
  if (kept + 1 > quotas.preferenceKeys)
    throw new RefusedError(
      `You already keep ${count(kept)} preference${kept === 1 ? "" : "s"} in this organization, the most allowed (${QUOTA_VARIABLES.preferenceKeys}). Clear one first (set it to null).`,
    );
}

/**
 * Refuses (422) customers that would take the organization past its quota: `kept` it has, `adding`
 * more. Counted after `lockForQuota` on the organization, in the transaction that writes them.
 */
export function requireCustomersQuota(quotas: Quotas, kept: number, adding: number): void {
  if (kept + adding > quotas.customers)
    throw new RefusedError(
      adding === 1
        ? `This organization already has ${count(kept)} customers, the most allowed (${QUOTA_VARIABLES.customers}).`
        : `This organization has ${count(kept)} customers; ${count(adding)} more would make ${count(kept + adding)}, and at most ${count(quotas.customers)} are allowed (${QUOTA_VARIABLES.customers}). Nothing was imported.`,
    );
}
