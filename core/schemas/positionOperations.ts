/**
 * A dealer's changes to an open position (POST /api/accounts/{platformId}/{login}/positions/
 * {positionId}/modify and …/close), written once for the API, the OpenAPI document and the
 * account panel's dialogs: new stops, a close, a partial close. Each is done exactly once per
 * Idempotency-Key (docs/decisions/0075-position-operations-once-per-idempotency-key.md).
 */
import { z } from "zod";
import { formatLots, lotsToVolume, type Volume } from "../trading/volume.ts";
import { AccountParamsSchema } from "./accounts.ts";
import { PositionSchema } from "./accountViews.ts";

export const PositionParamsSchema = AccountParamsSchema.extend({
  positionId: z
    .string()
    .regex(/^[A-Za-z0-9:._-]{1,64}$/, { error: "The position id must be a position's id as the positions list gives it" })
    .meta({ description: "The position's id as the account's positions list gives it" }),
});

/** Lots as typed: up to 4 decimals (1/10000 lot is the model's unit). */
export const LOTS_PATTERN = /^\d{1,6}(\.\d{1,4})?$/;

const stop = (name: string) =>
  z
    .number({ error: `${name} must be a price (a number), or null to remove it` })
    .positive({ error: `${name} must be a price above zero, or null to remove it` })
    .nullable();

export const ModifyPositionBodySchema = z.object(
  {
    sl: stop("Stop loss").meta({ description: "The new stop loss; null removes it" }),
    tp: stop("Take profit").meta({ description: "The new take profit; null removes it" }),
  },
  { error: 'The body must be a JSON object such as {"sl": 1.08, "tp": null}' },
);
export type ModifyPositionBody = z.infer<typeof ModifyPositionBodySchema>;

export const ClosePositionBodySchema = z.object(
  {
    volume: z
      .string({ error: 'The volume to close must be lots written as text, such as "0.05"' })
      .trim()
      .regex(LOTS_PATTERN, { error: 'The volume to close must be lots such as "0.05" (at most 4 decimals)' })
      .refine((v) => Number(v) > 0, { error: "The volume to close must be more than zero" })
      .optional()
      .meta({ description: "Lots to close (a partial close); absent closes the whole position" }),
  },
  { error: 'The body must be a JSON object: {} to close the whole position, or {"volume": "0.05"} for part of it' },
);
export type ClosePositionBody = z.infer<typeof ClosePositionBodySchema>;

export const POSITION_OPERATION_KINDS = ["modify", "close", "partialClose"] as const;
export type PositionOperationKind = (typeof POSITION_OPERATION_KINDS)[number];

/** The answer (200), the same to every retry with the key (header `Idempotent-Replayed: true`). */
export const PositionOperationResultSchema = z.object({
  operationId: z.guid().meta({ description: "Toolbox's id of the operation, sent to the platform as the order's request id" }),
  kind: z.enum(POSITION_OPERATION_KINDS),
  positionId: z.string(),
  price: z.number().meta({ description: "The closing price; for a stops change, the market price when it was made" }),
  closedVolume: z.string().nullable().meta({ description: "Lots closed; null for a stops change" }),
  sl: z.number().nullable(),
  tp: z.number().nullable(),
  at: z.iso.datetime(),
  position: PositionSchema.nullable().meta({
    description: "The position as it stands after the operation (on MT4 a partial close leaves it under a new ticket); null once closed",
  }),
});
export type PositionOperationResult = z.infer<typeof PositionOperationResultSchema>;

/** What the volume rules need of the symbol and the position, in the model's units. */
export interface CloseVolumeRules {
  positionVolume: Volume;
  volumeMin: Volume;
  volumeStep: Volume;
}

/**
 * Why `lots` cannot be closed out of the position, in a dealer's words, or null: at least the
 * symbol's minimum, a whole number of its steps, less than the whole position (that is a close),
 * and leaving at least the minimum open. The API answers it with 400; the dialog shows it on the field.
 */
export function partialCloseProblem(lots: string, rules: CloseVolumeRules): string | null {
  const text = lots.trim();
  if (!LOTS_PATTERN.test(text) || Number(text) <= 0) return 'Enter the lots to close, such as "0.05".';
  const volume = lotsToVolume(Number(text));
  const { positionVolume, volumeMin, volumeStep } = rules;
  if (volume >= positionVolume) return `Enter less than the position's ${formatLots(positionVolume)} lots; to close all of it, use Close.`;
  if (volume < volumeMin) return `Close at least ${formatLots(volumeMin)} lots (the symbol's minimum).`;
  if (volumeStep > 0 && volume % volumeStep !== 0) return `Close a multiple of ${formatLots(volumeStep)} lots (the symbol's volume step).`;
  if (positionVolume - volume < volumeMin) return `At least ${formatLots(volumeMin)} lots must stay open; close less, or close all of it.`;
  return null;
}
