/**
 * The preview of a copy link on the source's history (POST /api/tradesCopier/preview,
 * docs/trades-copier.md "Preview"): per follower, each signal of the period with what the follower
 * would have done, or why it would have been skipped. Lots as text, times as ISO strings.
 */
import { z } from "zod";
import { PENDING_ORDER_TYPES } from "../trading/pendingOrder.ts";
import { AccountRefSchema, SKIP_REASONS } from "./copier.ts";

export const PREVIEW_SOURCE_ACTIONS = ["open", "stops", "partialClose", "close", "orderPlaced", "orderModified", "orderCancelled", "orderFilled"] as const;
export const PREVIEW_FOLLOWER_ACTIONS = ["open", "modify", "close", "placeOrder", "modifyOrder", "cancelOrder"] as const;

export const PreviewSignalSchema = z.object({
  time: z.string(),
  source: z.object({
    action: z.enum(PREVIEW_SOURCE_ACTIONS),
    positionId: z.string().nullable(),
    orderId: z.string().nullable(),
    symbol: z.string(),
    side: z.enum(["buy", "sell"]),
    orderType: z.enum(PENDING_ORDER_TYPES).nullable(),
    /** The source's volume of this action: opened, closed, or the order's. */
    volume: z.string(),
  }),
  outcome: z.enum(["copy", "skip", "nothing"]),
  reason: z.enum(SKIP_REASONS).nullable(),
  reasonText: z.string().nullable(),
  follower: z
    .object({
      action: z.enum(PREVIEW_FOLLOWER_ACTIONS),
      symbol: z.string(),
      side: z.enum(["buy", "sell"]),
      orderType: z.enum(PENDING_ORDER_TYPES).nullable(),
      volume: z.string().nullable(),
      sl: z.number().nullable(),
      tp: z.number().nullable(),
    })
    .nullable(),
});
export type PreviewSignal = z.infer<typeof PreviewSignalSchema>;

export const FollowerPreviewSchema = z.object({
  account: AccountRefSchema,
  copies: z.int(),
  skipped: z.int(),
  signals: z.array(PreviewSignalSchema),
});
export type FollowerPreview = z.infer<typeof FollowerPreviewSchema>;

export const CopyLinkPreviewSchema = z.object({
  from: z.string(),
  to: z.string(),
  /** Source signals read from the trade history store over the period. */
  sourceSignals: z.int(),
  /** The source's history had more records than the preview reads (server/modules/tradesCopier/preview.ts): it covers the earliest. */
  truncated: z.boolean(),
  followers: z.array(FollowerPreviewSchema),
});
export type CopyLinkPreview = z.infer<typeof CopyLinkPreviewSchema>;
