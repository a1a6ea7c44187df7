/**
 * The notifications API's routes, and only them. One idea: the HTTP face of the inbox
 * (/api/inbox) and of the organization's notification settings and channels (/api/notifications),
 * each handler parsing, calling the service and answering (docs/notifications.md).
 */
import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import {
  ChannelSchema,
  CreateChannelSchema,
  DeliverySchema,
  InboxPageSchema,
  InboxQuerySchema,
  NotificationSchema,
  NotificationSettingsSchema,
  UpdateChannelSchema,
  type Notification,
} from "../../../core/schemas/notifications.ts";
import { createMailer, outboxMailer } from "../../mail/mailer.ts";
import { parseTargetPolicy } from "../../net/targets.ts";
import { secretCipherOf } from "../../secrets/context.ts";
import { NotFoundError } from "../../errors.ts";
import { actorOf } from "../audit/record.ts";
import type { AppContext } from "../../context.ts";
import { NotificationCenter } from "./center.ts";
import { inboxStreams } from "./inboxStream.ts";
import {
  findChannel,
  getSettings,
  listChannels,
  listDeliveries,
  listInbox,
  markAllRead,
  markRead,
  sweepRetention,
  unreadCount,
  type NotificationRow,
} from "./repository.ts";
import { recipientConfirmationRoutes } from "./confirmRoutes.ts";
import { recipientStates, renewPending } from "./recipientRepository.ts";
import { channelView, createChannel, deleteChannel, saveSettings, updateChannel, type NotificationDeps } from "./service.ts";

const centers = new WeakMap<AppContext, NotificationCenter>();

/** The notification center of an app (tests reach its mailer and options through the app's context). */
export function notificationCenterOf(ctx: AppContext): NotificationCenter | undefined {
  return centers.get(ctx);
}

/** The inbox is the signed-in member's own: API clients have none. */
const inboxRead = { permission: { module: "inbox", value: "read" }, callers: "people" } as const;
const settingsRead = { permission: { module: "settings", value: "read" } } as const;
const settingsWrite = { permission: { module: "settings", value: "write" } } as const;
const IdParams = z.object({ id: z.uuid({ error: "id must be a UUID" }) });

function view(row: NotificationRow): Notification {
  return {
    id: row.id,
    type: row.type as Notification["type"],
    severity: row.severity as Notification["severity"],
    title: row.title,
    body: row.body,
    link: row.link,
    createdAt: row.createdAt.toISOString(),
    readAt: row.readAt?.toISOString() ?? null,
  };
}

/**
 * The inbox (/api/inbox: the signed-in member's own notifications in this organization) and the
 * organization's notification settings and channels (/api/notifications). docs/notifications.md.
 */
export async function notificationRoutes(app: FastifyInstance) {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const { config, database } = app.ctx;
  const { db } = database;
  const policy = parseTargetPolicy(config.notifications.allowedTargets);
  const cipher = secretCipherOf(app.ctx);
  const log = app.log.child({ module: "notifications" });
  const center = new NotificationCenter({
    db,
    bus: app.bus,
    cipher,
    log,
    mailer: createMailer(config.mail) ?? outboxMailer(log),
    policy,
    publicUrl: config.publicUrl,
    telegramApiUrl: config.notifications.telegramApiUrl,
    maxAttempts: config.notifications.maxAttempts,
    retryBaseMs: config.notifications.retryBaseMs,
    disableAfter: config.notifications.disableAfter,
    reconnectSettleMs: config.notifications.reconnectSettleMs,
    maxEmailsPerHour: config.notifications.maxEmailsPerHour,
    pollEveryMs: config.notifications.pollEveryMs,
  });
  const previous = centers.get(app.ctx);
  centers.set(app.ctx, center);
  center.start();
  const streams = inboxStreams(db, app.bus);
  app.addHook("preClose", async () => streams.closeAll());
  app.addHook("onClose", async () => {
    await center.stop();
    if (centers.get(app.ctx) !== center) return;
    if (previous) centers.set(app.ctx, previous);
    else centers.delete(app.ctx);
  });
  const deps: NotificationDeps = {
    db,
    cipher,
    policy,
    confirmRecipients: (organizationId, channelId, requests) => center.confirmRecipients(organizationId, channelId, requests),
  };
  const ownerOf = (request: { organization: { id: string }; auth: { sub: string } }) => ({
    organizationId: request.organization.id,
    userSub: request.auth.sub,
  });
  const tags = ["inbox"];

  api.get(
    "/inbox",
    {
      config: inboxRead,
      schema: {
        tags,
        summary: "The caller's notifications in this organization, newest first, filtered and paged",
        querystring: InboxQuerySchema,
        response: { 200: InboxPageSchema },
      },
    },
    async (request) => {
      const owner = ownerOf(request);
      const page = await listInbox(db, owner, request.query);
      return { items: page.rows.map(view), unread: await unreadCount(db, owner), next: page.next };
    },
  );

  api.get(
    "/inbox/live",
    {
      exposeHeadRoute: false,
      config: { ...inboxRead, rateLimit: { max: 60, timeWindow: "1 minute" } },
      schema: {
        tags,
        summary: "The caller's unread count, live (text/event-stream)",
        description: "Event `unread` {unread} at once and on every change of the caller's inbox; `: ping` every 15 s.",
        produces: ["text/event-stream"],
      },
    },
    async (request, reply) => streams.open(request, reply),
  );

  api.post(
    "/inbox/:id/read",
    { config: inboxRead, schema: { tags, summary: "Mark one of the caller's notifications read", params: IdParams, response: { 200: NotificationSchema } } },
    async (request) => {
      const owner = ownerOf(request);
      const row = await markRead(db, owner, request.params.id);
      if (!row) throw new NotFoundError("No such notification");
      await center.inboxChanged(owner.organizationId, [owner.userSub]);
      return view(row);
    },
  );

  api.post(
    "/inbox/read-all",
    {
      config: inboxRead,
      schema: { tags, summary: "Mark all the caller's notifications in this organization read", response: { 200: z.object({ marked: z.number().int() }) } },
    },
    async (request) => {
      const owner = ownerOf(request);
      const marked = await markAllRead(db, owner);
      if (marked > 0) await center.inboxChanged(owner.organizationId, [owner.userSub]);
      return { marked };
    },
  );

  const ntags = ["notifications"];
  api.get(
    "/notifications/settings",
    { config: settingsRead, schema: { tags: ntags, summary: "Retention, large balance threshold and rules", response: { 200: NotificationSettingsSchema } } },
    async (request) => getSettings(db, request.organization.id),
  );

  api.put(
    "/notifications/settings",
    {
      config: settingsWrite,
      schema: {
        tags: ntags,
        summary: "Replace retention, large balance threshold and rules",
        body: NotificationSettingsSchema,
        response: { 200: NotificationSettingsSchema },
      },
    },
    async (request) => {
      const saved = await saveSettings(deps, actorOf(request), request.body);
      // A shorter retention applies at once.
      const removed = await sweepRetention(db, request.organization.id);
      if (removed > 0) await center.inboxChanged(request.organization.id);
      return saved;
    },
  );

  api.get(
    "/notifications/channels",
    {
      config: settingsRead,
      schema: { tags: ntags, summary: "The organization's channels (secrets never returned)", response: { 200: z.array(ChannelSchema) } },
    },
    async (request) => {
      const rows = await listChannels(db, request.organization.id);
      const recipients = await recipientStates(
        db,
        rows.map((c) => c.id),
      );
      return rows.map((c) => channelView(c, recipients.get(c.id)));
    },
  );

  api.post(
    "/notifications/channels",
    {
      config: settingsWrite,
      schema: { tags: ntags, summary: "Add an e-mail, Telegram or webhook channel", body: CreateChannelSchema, response: { 201: ChannelSchema } },
    },
    async (request, reply) => reply.code(201).send(await createChannel(deps, actorOf(request), request.body)),
  );

  api.patch(
    "/notifications/channels/:id",
    {
      config: settingsWrite,
      schema: {
        tags: ntags,
        summary: "Change a channel (a secret omitted is kept)",
        params: IdParams,
        body: UpdateChannelSchema,
        response: { 200: ChannelSchema },
      },
    },
    async (request) => updateChannel(deps, actorOf(request), request.params.id, request.body),
  );

  api.delete(
    "/notifications/channels/:id",
    { config: settingsWrite, schema: { tags: ntags, summary: "Delete a channel and its delivery log", params: IdParams } },
    async (request, reply) => {
      await deleteChannel(deps, actorOf(request), request.params.id);
      return reply.code(204).send();
    },
  );

  api.post(
    "/notifications/channels/:id/test",
    {
      config: { ...settingsWrite, rateLimit: { max: 20, timeWindow: "1 minute" } },
      schema: {
        tags: ntags,
        summary: "Send a test message through a channel now (one try, logged)",
        params: IdParams,
        response: { 200: z.object({ delivered: z.boolean(), status: z.number().int().nullable(), error: z.string().nullable() }) },
      },
    },
    async (request) => {
      const channel = await findChannel(db, request.organization.id, request.params.id);
      if (!channel) throw new NotFoundError("No such notification channel");
      return center.sendTest(channel);
    },
  );

  api.post(
    "/notifications/channels/:id/recipients/resend",
    {
      config: { ...settingsWrite, rateLimit: { max: 10, timeWindow: "1 minute" } },
      schema: {
        tags: ntags,
        summary: "Mail the confirmation link again to the e-mail channel's addresses that have not confirmed (new links; the earlier ones stop working)",
        params: IdParams,
        response: { 200: z.object({ requested: z.number().int() }) },
      },
    },
    async (request) => {
      const channel = await findChannel(db, request.organization.id, request.params.id);
      if (!channel || channel.kind !== "email") throw new NotFoundError("No such e-mail channel");
      const requests = await renewPending(db, channel.id);
      center.confirmRecipients(channel.organizationId, channel.id, requests);
      return { requested: requests.length };
    },
  );

  await app.register(recipientConfirmationRoutes);

  api.get(
    "/notifications/channels/:id/deliveries",
    {
      config: settingsRead,
      schema: { tags: ntags, summary: "A channel's latest deliveries (the delivery log)", params: IdParams, response: { 200: z.array(DeliverySchema) } },
    },
    async (request) => {
      const channel = await findChannel(db, request.organization.id, request.params.id);
      if (!channel) throw new NotFoundError("No such notification channel");
      return (await listDeliveries(db, channel.id)).map((d) => ({
        id: d.id,
        type: d.type,
        status: d.status as "pending" | "delivered" | "failed",
        attempts: d.attempts,
        lastStatus: d.lastStatus,
        lastError: d.lastError,
        createdAt: d.createdAt.toISOString(),
        updatedAt: d.updatedAt.toISOString(),
      }));
    },
  );
}
