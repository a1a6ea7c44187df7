/**
 * A follower's resync (docs/trades-copier.md "Resync"): what it would take to make the follower
 * hold exactly the copies of the source's open positions — open what the source has and the
 * follower lacks, close what the follower has copied that the source no longer has. GET answers
 * the plan; POST carries it out through the ledger and answers each action with its outcome.
 */
import { z } from "zod";

export const ResyncActionSchema = z.object({
  /** open a missing copy, close a copy left over, reduce a copy bigger than its share (close `volume` of it). */
  kind: z.enum(["open", "close", "reduce"]),
  /** The source position (`position:<id>`) the action copies or whose copy it closes. */
  sourceId: z.string(),
  /** The follower's symbol. */
  symbol: z.string(),
  side: z.enum(["buy", "sell"]),
  /** Lots, as text ("0.2"). */
  volume: z.string(),
  /** For a close or a reduce: the follower's position it closes (part of). */
  followerPositionId: z.string().optional(),
});
export type ResyncAction = z.infer<typeof ResyncActionSchema>;

export const ResyncPlanSchema = z.object({ actions: z.array(ResyncActionSchema) });
export type ResyncPlan = z.infer<typeof ResyncPlanSchema>;

/** POST's answer: the plan carried out, each action with the ledger's outcome (`failed` keeps the platform's words). */
export const ResyncResultSchema = z.object({
  actions: z.array(
    ResyncActionSchema.extend({
      state: z.enum(["pending", "done", "failed", "skipped"]),
      reason: z.string().nullable(),
    }),
  ),
});
export type ResyncResult = z.infer<typeof ResyncResultSchema>;
