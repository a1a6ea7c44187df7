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
import { sseHub } from "../../streams/sse.ts";
import { unreadCount } from "./repository.ts";

export function inboxStreams(db: Db, bus: EventBus) {
  const hub = sseHub();
  return {
    open(request: FastifyRequest, reply: FastifyReply) {
      const owner = { organizationId: request.organization.id, userSub: request.auth.sub };
      const stream = hub.open(request, reply);

      // One count at a time, the latest asked for last: a burst of changes sends the final figure.
      let counting = false;
      let again = false;
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
            stream.send("unread", { unread });
          } while (again && !stream.closed);
        } catch (err) {
          request.log.warn({ err }, "inbox unread count failed");
        } finally {
          counting = false;
        }
      };
      const subscription = bus.subscribe({ types: ["inboxChanged"], organizationId: owner.organizationId }, ({ event }) => {
        if (!event.userSubs || event.userSubs.includes(owner.userSub)) void recount();
      });
      stream.onClose(() => subscription.close());
      void recount();
    },
    closeAll: hub.closeAll,
  };
}
