import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { CopyLinkBodySchema } from "../../../core/schemas/copier.ts";
import { CopyLinkPreviewSchema } from "../../../core/schemas/copierPreview.ts";
import { previewLink } from "./preview.ts";

const read = { permission: { module: "tradesCopier", value: "read" } } as const;

/**
 * POST /api/tradesCopier/preview: "had this link existed over the last 7 days" — per follower, the
 * copies the link would have made from the source's history in the trade history store, with
 * volumes, and the signals it would have skipped with their reasons (./preview.ts). A link need
 * not be saved; its accounts must be on the organization's platforms (404 otherwise).
 */
export async function tradesCopierPreviewRoutes(app: FastifyInstance) {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const { db } = app.ctx.database;
  api.post(
    "/tradesCopier/preview",
    {
      config: read,
      schema: {
        tags: ["tradesCopier"],
        summary: "What a copy link would have copied over the last 7 days of the source's history, per follower, and what it would have skipped and why",
        body: CopyLinkBodySchema,
        response: { 200: CopyLinkPreviewSchema },
      },
    },
    async (request) => previewLink(db, app.platforms, request.organization.id, request.body),
  );
}
