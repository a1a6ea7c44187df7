/**
 * The dealing scheduler (docs/dealing.md "The switch"): on every node, once a second, works out
 * each platform's profile in force (core/dealing/active.ts) and
 *  - applies it to the simulated servers this node hosts (every tick: a server restored after a
 *    restart, or moved here from another node, obeys it within a second);
 *  - records the latest switch once across nodes: the row (platform, instant of the switch) is
 *    inserted by exactly one node (primary key, ON CONFLICT DO NOTHING); that node alone audits it
 *    (`dealing.switched`, before/after profile) in the same transaction and publishes
 *    `dealingProfileSwitched` for the inbox. Only switches after the settings' last change are
 *    recorded (a change made by a person is audited as that change); a switch that fell while no
 *    node ran is recorded when one comes back.
 */
import type { FastifyInstance } from "fastify";
import { activeProfile, profileNamed, type DealingOverride, type ExecutionProfile } from "../../../core/dealing/index.ts";
import { configVersion } from "../../../core/trading/index.ts";
import type { TradePlatformConnector } from "../../connectors/connector.ts";
import type { AppContext } from "../../context.ts";
import { dealingProfileOf } from "../../connectors/simulated/engine/dealing.ts";
import type { SimulatedServer } from "../../connectors/simulated/server.ts";
import type { Db } from "../../db/client.ts";
import type { DomainEvent } from "../../events/types.ts";
import { recordAudit, type Actor } from "../audit/record.ts";
import { auditTargetId } from "../serverConfig/service.ts";
import { allDealing, claimServerWrite, finishServerWrite, keepServerOriginals, recordSwitch } from "./repository.ts";
import { writeProfile, type ProfileWriteResult } from "./serverWrite.ts";

export const SCHEDULER_ACTOR = { sub: "system:dealing-schedule", name: "Dealing schedule" } as const;

export interface DealingSchedulerDeps {
  db: Db;
  now(): number;
  simulatedServer(platformId: string): SimulatedServer | undefined;
  /** The connector of a real (non-simulated) platform, to write the profile in force to it. */
  connectorFor(organizationId: string, platformId: string): Promise<TradePlatformConnector>;
  publish(event: DomainEvent, id: string): Promise<void>;
  warn(err: unknown, message: string): void;
  intervalMs?: number;
}

export class DealingScheduler {
  private timer: ReturnType<typeof setInterval> | null = null;
  private running: Promise<void> | null = null;

  constructor(private readonly deps: DealingSchedulerDeps) {}

  start(): void {
    if (this.timer) return;
    void this.runTick();
    this.timer = setInterval(() => void this.runTick(), this.deps.intervalMs ?? 1000);
    this.timer.unref?.();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }

  /** A platform's settings changed: apply at once rather than at the next tick. */
  refresh(_platformId: string): void {
    if (this.timer) void this.runTick();
  }

  private runTick(): Promise<void> | null {
    // One tick at a time per node; a tick asked for meanwhile is covered by the next.
    this.running ??= this.tick(this.deps.now())
      .then(() => undefined)
      .catch((err: unknown) => this.deps.warn(err, "dealing: a scheduler tick failed"))
      .finally(() => {
        this.running = null;
      });
    return this.running;
  }

  private async writeToServer(row: DealingRowOfTick, profile: ExecutionProfile, now: number): Promise<void> {
    try {
      await writeServer(this.deps, row, profile, now);
    } catch (err) {
      this.deps.warn(err, "dealing: writing a profile to a real server failed");
    }
  }

  /** One pass at instant `now` (tests call it with the instant they want). Answers the switches this node recorded. */
  async tick(now: number): Promise<{ platformId: string; at: number; profile: string }[]> {
    const recorded: { platformId: string; at: number; profile: string }[] = [];
    for (const row of await allDealing(this.deps.db)) {
      const overrides: DealingOverride[] = row.override ? [row.override] : [];
      const active = activeProfile(row.settings, overrides, now, row.timeZone);
      const server = this.deps.simulatedServer(row.platformId);
      if (server) {
        // Only a change goes to the engine: it is a recorded call on a server that keeps its state.
        const wanted = profileNamed(row.settings, active.profile);
        if (JSON.stringify(dealingProfileOf(server.engine.ctx)) !== JSON.stringify(wanted)) server.engine.setDealingProfile(wanted);
      }
      if (row.connectionKind !== "simulated") await this.writeToServer(row, profileNamed(row.settings, active.profile), now);
      if (active.since === null || active.since <= row.updatedAt.getTime()) continue;
      const at = active.since;
      const from = activeProfile(row.settings, overrides, at - 1, row.timeZone).profile;
      const actor: Actor = { organizationId: row.organizationId, sub: SCHEDULER_ACTOR.sub, name: SCHEDULER_ACTOR.name, sourceIp: null };
      const won = await this.deps.db.transaction(async (tx) => {
        if (!(await recordSwitch(tx, row.platformId, at, active.profile, active.reason.text))) return false;
        await recordAudit(tx, actor, {
          action: "dealing.switched",
          targetType: "dealing",
          targetId: row.platformId,
          before: { profile: from },
          after: { profile: active.profile, at: new Date(at).toISOString(), reason: active.reason.text },
        });
        return true;
      });
      if (!won) continue;
      recorded.push({ platformId: row.platformId, at, profile: active.profile });
      await this.deps
        .publish(
          {
            type: "dealingProfileSwitched",
            organizationId: row.organizationId,
            platformId: row.platformId,
            at,
            from,
            profile: active.profile,
            reason: active.reason.text,
          },
          `dealingProfileSwitched:${row.platformId}:${at}`,
        )
        .catch((err: unknown) => this.deps.warn(err, "dealing: a switch could not be published"));
    }
    return recorded;
  }
}

/**
 * A real server: the profile in force written through the connector's configuration writes, by
 * the one node whose claim lands (repository.claimServerWrite), each written symbol audited with
 * before/after (in the platform's configuration history), a refusal or failure audited once.
 */
async function writeServer(deps: DealingSchedulerDeps, row: DealingRowOfTick, profile: ExecutionProfile, now: number): Promise<ProfileWriteResult | null> {
  const hash = configVersion(profile);
  const claim = await claimServerWrite(deps.db, { platformId: row.platformId, organizationId: row.organizationId, profile: profile.name, hash, now });
  if (!claim) return null;
  let result: ProfileWriteResult;
  try {
    const connector = await deps.connectorFor(row.organizationId, row.platformId);
    result = await writeProfile({ connector, keep: (originals) => keepServerOriginals(deps.db, row.platformId, originals) }, profile, claim.row.originals);
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    result = { status: "failed", message: `The platform could not be reached: ${message} Nothing was written.`, objects: [], skipped: [], notTaken: [] };
  }
  const actor: Actor = { organizationId: row.organizationId, sub: SCHEDULER_ACTOR.sub, name: SCHEDULER_ACTOR.name, sourceIp: null };
  const at = new Date(now).toISOString();
  await deps.db.transaction(async (tx) => {
    await finishServerWrite(tx, row.platformId, hash, result.status, { ...result, profile: profile.name, at });
    for (const object of result.objects)
      await recordAudit(tx, actor, {
        action: "dealing.symbolWritten",
        targetType: "serverConfig.symbol",
        targetId: auditTargetId(row.platformId, object.name),
        before: object.before,
        after: object.after,
      });
    // A failure retried every minute is audited once (the first time, or for another profile).
    const repeated = claim.previous?.status === result.status && claim.previous.hash === hash;
    if (result.status !== "applied" && !repeated)
      await recordAudit(tx, actor, {
        action: `dealing.serverWrite.${result.status}`,
        targetType: "dealing",
        targetId: row.platformId,
        before: null,
        after: { profile: profile.name, message: result.message, current: result.current ?? null },
      });
  });
  return result;
}

type DealingRowOfTick = Awaited<ReturnType<typeof allDealing>>[number];

const schedulers = new WeakMap<AppContext, DealingScheduler>();

/** The scheduler of an app (tests reach it through the app's context). */
export function dealingSchedulerOf(ctx: AppContext): DealingScheduler | undefined {
  return schedulers.get(ctx);
}

export function dealingSchedulerDepsOf(app: FastifyInstance): DealingSchedulerDeps {
  const log = app.log.child({ module: "dealing" });
  return {
    db: app.ctx.database.db,
    now: () => Date.now(),
    simulatedServer: (platformId) => app.platforms.simulatedServer(platformId),
    connectorFor: (organizationId, platformId) => app.platforms.connectorFor(organizationId, platformId),
    publish: (event, id) => app.bus.publish(event, { ids: [id] }),
    warn: (err, message) => log.warn({ err }, message),
  };
}

export async function dealingSchedulerPlugin(app: FastifyInstance) {
  const scheduler = new DealingScheduler(dealingSchedulerDepsOf(app));
  const previous = schedulers.get(app.ctx);
  schedulers.set(app.ctx, scheduler);
  app.addHook("onReady", async () => scheduler.start());
  app.addHook("onClose", async () => {
    await scheduler.stop();
    if (schedulers.get(app.ctx) !== scheduler) return;
    if (previous) schedulers.set(app.ctx, previous);
    else schedulers.delete(app.ctx);
  });
}
