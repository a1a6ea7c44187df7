/** The trade history endpoints' schemas: the contract shared with the blotter screen, written once in core/schemas/tradesBlotter.ts. */
import { z } from "zod";

export * from "../../../core/schemas/tradesBlotter.ts";

export const PlatformParamsSchema = z.object({ id: z.string().max(100) });
