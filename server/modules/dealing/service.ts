/**
 * A platform's dealing settings (docs/dealing.md): read with the profile in force, replaced whole,
 * and the manual override set or ended. Every change is audited with before/after in the same
 * transaction, then handed to the scheduler (`changed`) so the profile in force is applied at once.
 */
import {
  activeProfile,
  cannotTake,
  defaultDealingSettings,
  type ActiveProfile,
  type DealingOverride,
  type DealingSettings,
  type DealingView,
  type OverrideBody,
  type ServerWritesView,
} from "../../../core/dealing/index.ts";
import type { Db } from "../../db/client.ts";
import { InvalidRequestError, NotFoundError } from "../../errors.ts";
import { recordAudit, type Actor } from "../audit/record.ts";
import { findPlatform } from "../tradePlatforms/repository.ts";
import { findDealing, findServerWrite, saveDealing, type DealingRow } from "./repository.ts";

/** An override lasts at most 31 days. */
export const MAX_OVERRIDE_MS = 31 * 86_400_000;

export interface DealingDeps {
  db: Db;
  now(): number;
  /** The settings of `platformId` changed: apply the profile now in force. */
  changed(platformId: string): void;
}

const iso = (at: number) => new Date(at).toISOString();

export function activeView(active: ActiveProfile) {
  return {
    profile: active.profile,
    reason: active.reason,
    since: active.since === null ? null : iso(active.since),
    next: active.next === null ? null : { at: iso(active.next.at), profile: active.next.profile, reason: active.next.reason },
  };
}

function viewOf(platformId: string, timeZone: string, row: DealingRow | undefined, now: number): DealingView {
  const settings = row?.settings ?? defaultDealingSettings();
  const override = row?.override && row.override.until > now ? row.override : null;
  return {
    platformId,
    timeZone,
    settings,
    override: override && { profile: override.profile, from: iso(override.from), until: iso(override.until) },
    active: activeView(activeProfile(settings, override ? [override] : [], now, timeZone)),
    updatedAt: row ? row.updatedAt.toISOString() : null,
  };
}

type Platform = NonNullable<Awaited<ReturnType<typeof findPlatform>>>;

/** How the profile reaches the server: the engine (simulated), or configuration writes and what they cannot carry. */
async function serverWritesOf(db: Db, platform: Platform): Promise<ServerWritesView> {
  if (platform.connection.kind === "simulated") return { appliedBy: "engine", cannotTake: [], last: null };
  const row = await findServerWrite(db, platform.id);
  const result = (row?.result ?? {}) as Partial<Omit<NonNullable<ServerWritesView["last"]>, "profile" | "status">>;
  return {
    appliedBy: "configuration",
    cannotTake: cannotTake(platform.type),
    last: row
      ? {
          profile: row.profile,
          status: row.status,
          at: result.at ?? null,
          message: result.message ?? null,
          objects: result.objects ?? [],
          skipped: result.skipped ?? [],
          notTaken: result.notTaken ?? [],
        }
      : null,
  };
}

async function platformOf(db: Db, organizationId: string, platformId: string) {
  const platform = await findPlatform(db, organizationId, platformId);
  if (!platform) throw new NotFoundError("No such trade platform in this organization.");
  return platform;
}

export async function getDealing(deps: DealingDeps, organizationId: string, platformId: string): Promise<DealingView> {
  const platform = await platformOf(deps.db, organizationId, platformId);
  const view = viewOf(platform.id, platform.timeZone, await findDealing(deps.db, platform.id), deps.now());
  return { ...view, serverWrites: await serverWritesOf(deps.db, platform) };
}

export async function putDealing(deps: DealingDeps, actor: Actor, platformId: string, settings: DealingSettings): Promise<DealingView> {
  const platform = await platformOf(deps.db, actor.organizationId, platformId);
  const row = await deps.db.transaction(async (tx) => {
    const before = await findDealing(tx, platform.id, { forUpdate: true });
    let override = before?.override ?? null;
    // An override of a profile that no longer exists ends with it.
    if (override && !settings.profiles.some((p) => p.name === override!.profile)) override = null;
    const saved = await saveDealing(tx, actor.organizationId, platform.id, { settings, override });
    await recordAudit(tx, actor, {
      action: "dealing.changed",
      targetType: "dealing",
      targetId: platform.id,
      before: before?.settings ?? defaultDealingSettings(),
      after: settings,
    });
    return saved;
  });
  deps.changed(platform.id);
  return { ...viewOf(platform.id, platform.timeZone, row, deps.now()), serverWrites: await serverWritesOf(deps.db, platform) };
}

export async function setOverride(deps: DealingDeps, actor: Actor, platformId: string, body: OverrideBody): Promise<DealingView> {
  const platform = await platformOf(deps.db, actor.organizationId, platformId);
  const now = deps.now();
  const until = Date.parse(body.until);
  if (until <= now) throw new InvalidRequestError("Override end must be in the future.");
  if (until - now > MAX_OVERRIDE_MS) throw new InvalidRequestError("An override lasts at most 31 days.");
  const row = await deps.db.transaction(async (tx) => {
    const current = await findDealing(tx, platform.id, { forUpdate: true });
    const settings = current?.settings ?? defaultDealingSettings();
    if (!settings.profiles.some((p) => p.name === body.profile))
      throw new InvalidRequestError(`Override profile "${body.profile}" is not one of the profiles.`);
    const override: DealingOverride = { profile: body.profile, from: now, until };
    const before = current?.override && current.override.until > now ? current.override : null;
    const saved = await saveDealing(tx, actor.organizationId, platform.id, { settings, override });
    await recordAudit(tx, actor, {
      action: "dealing.override.set",
      targetType: "dealing",
      targetId: platform.id,
      before: before && auditedOverride(before),
      after: auditedOverride(override),
    });
    return saved;
  });
  deps.changed(platform.id);
  return { ...viewOf(platform.id, platform.timeZone, row, now), serverWrites: await serverWritesOf(deps.db, platform) };
}

export async function endOverride(deps: DealingDeps, actor: Actor, platformId: string): Promise<DealingView> {
  const platform = await platformOf(deps.db, actor.organizationId, platformId);
  const now = deps.now();
  const row = await deps.db.transaction(async (tx) => {
    const current = await findDealing(tx, platform.id, { forUpdate: true });
    const override = current?.override && current.override.until > now ? current.override : null;
    if (!current || !override) throw new NotFoundError("No manual override is in force on this platform.");
    const saved = await saveDealing(tx, actor.organizationId, platform.id, { settings: current.settings, override: null });
    await recordAudit(tx, actor, {
      action: "dealing.override.ended",
      targetType: "dealing",
      targetId: platform.id,
      before: auditedOverride(override),
      after: null,
    });
    return saved;
  });
  deps.changed(platform.id);
  return { ...viewOf(platform.id, platform.timeZone, row, now), serverWrites: await serverWritesOf(deps.db, platform) };
}

function auditedOverride(o: DealingOverride) {
  return { profile: o.profile, from: iso(o.from), until: iso(o.until) };
}
