/**
 * GET /api/inbox/live: the signed-in member's unread count in this organization as Server-Sent
 * Events (`event: unread`, data {unread}), at once and whenever their inbox changes on any node
 * (`inboxChanged` on the bus); `: ping` every 15 s. Ends when the client goes, the app closes, or
 * the access token that opened it expires (the client reconnects with a fresh one), or the member
 * loses access (removed, or a role without the inbox).
 */
import type { FastifyReply, FastifyRequest } from "fastify";
import type { Db } from "../../db/client.ts";
import type { EventBus } from "../../events/bus.ts";
import { streamLifetimeMs } from "../../http/auth/tokenLifetime.ts";
import { unreadCount } from "./repository.ts";

const HEARTBEAT_MS = 15_000;

export function inboxStreams(db: Db, bus: EventBus) {
  const open = new Set<() => void>();
  return {
    open(request: FastifyRequest, reply: FastifyReply) {
      const owner = { organizationId: request.organization.id, userSub: request.auth.sub };
      reply.hijack();
      const res = reply.raw;
      res.writeHead(200, {
        ...(reply.getHeaders() as Record<string, string>),
        "Content-Type": "text/event-stream; charset=utf-8",
        "Cache-Control": "no-store",
        Connection: "keep-alive",
        "X-Accel-Buffering": "no",
      });
      res.flushHeaders();
      res.write("retry: 3000\n\n");

      // One count at a time, the latest asked for last: a burst of changes sends the final figure.
      let counting = false;
      let again = false;
      let closed = false;
      const recount = async () => {
        if (counting) {
          again = true;
          return;
        }
        counting = true;
        try {
          do {
            again = false;
            const unread = await unreadCount(db, owner);
            if (!closed && !res.writableEnded) res.write(`event: unread\ndata: ${JSON.stringify({ unread })}\n\n`);
          } while (again && !closed);
        } catch (err) {
          request.log.warn({ err }, "inbox unread count failed");
        } finally {
          counting = false;
        }
      };
      const subscription = bus.subscribe({ types: ["inboxChanged"], organizationId: owner.organizationId }, ({ event }) => {
        if (!event.userSubs || event.userSubs.includes(owner.userSub)) void recount();
      });
      void recount();
      const heartbeat = setInterval(() => {
        if (!res.writableEnded) res.write(": ping\n\n");
      }, HEARTBEAT_MS);
      const expiry = setTimeout(() => close(), streamLifetimeMs(request));
      // A member removed (or whose role no longer allows it) loses the stream at once, as the other live streams do.
      const unwatch = request.server.access.streams.watch(request, () => close());
      const close = () => {
        if (closed) return;
        closed = true;
        unwatch();
        clearInterval(heartbeat);
        clearTimeout(expiry);
        subscription.close();
        open.delete(close);
        if (!res.writableEnded) res.end();
      };
      open.add(close);
      request.raw.on("close", close);
      res.on("close", close);
      res.on("error", close);
    },
    closeAll() {
      for (const close of [...open]) close();
    },
  };
}
