/**
 * The page an e-mail recipient's confirmation link opens (./recipientRepository.ts, ./confirmationMail.ts): no sign-in (the
 * token is the proof), a button that confirms with a POST — mail scanners open links in messages,
 * and opening the link alone must not subscribe anyone. Plain HTML, no script, nothing the
 * organization chose on it.
 */
import formbody from "@fastify/formbody";
import type { FastifyInstance, FastifyReply } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { ApiErrorSchema } from "../../../core/schemas/apiError.ts";
import { confirmRecipient } from "./recipientRepository.ts";

const PATH = "/notifications/recipients/confirm";
const open = { auth: false, rateLimit: { max: 30, timeWindow: "1 minute" } } as const;

/** What these routes answer: a small HTML page (an invalid form field: the API's JSON error). */
const html = (description: string) => ({ description, content: { "text/html": { schema: z.string() } } });
const pages = {
  200: html("The page"),
  400: {
    description: "The link does not work (HTML), or a field is malformed (JSON)",
    content: { "text/html": { schema: z.string() }, "application/json": { schema: ApiErrorSchema } },
  },
};

const escape = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function page(reply: FastifyReply, status: number, title: string, body: string) {
  return reply
    .status(status)
    .header("Content-Type", "text/html; charset=utf-8")
    .header("Cache-Control", "no-store")
    .header("Referrer-Policy", "no-referrer")
    .send(
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escape(title)}</title></head><body><main><h1>${escape(title)}</h1>${body}</main></body></html>`,
    );
}

export async function recipientConfirmationRoutes(app: FastifyInstance) {
  await app.register(formbody, { bodyLimit: 4 * 1024 });
  const api = app.withTypeProvider<ZodTypeProvider>();
  const Token = z.object({ token: z.string().max(200).default("") });

  api.get(
    PATH,
    {
      config: open,
      schema: { tags: ["notifications"], summary: "The confirmation page of an e-mail recipient's link (HTML)", querystring: Token, response: pages },
    },
    async (request, reply) =>
      page(
        reply,
        200,
        "Confirm e-mail notifications",
        `<p>A Toolbox organization asked to send its notifications to your address. Confirm to receive them; otherwise close this page and nothing will be sent to you.</p>` +
          `<form method="post" action="/api${PATH}"><input type="hidden" name="token" value="${escape(request.query.token)}"><button type="submit">Confirm</button></form>`,
      ),
  );

  api.post(
    PATH,
    {
      config: open,
      schema: { tags: ["notifications"], summary: "Confirm an e-mail recipient (the token of its link; form or JSON)", body: Token, response: pages },
    },
    async (request, reply) =>
      (await confirmRecipient(app.ctx.database.db, request.body.token))
        ? page(reply, 200, "Address confirmed", "<p>This address now receives the notifications of that channel. You can close this page.</p>")
        : page(
            reply,
            400,
            "This link does not work",
            "<p>The link is unknown, already used or older than a week. Ask the organization to send the confirmation again.</p>",
          ),
  );
}
