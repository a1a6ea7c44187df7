import { ORGANIZATION_WIDE } from "../../events/types.ts";
import { refusal } from "../../../core/schemas/apiError.ts";
import type { FastifyInstance, FastifyRequest } from "fastify";
import { z } from "zod";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { accessOfClaims } from "../../../core/roles.ts";
import { endAllSessions } from "../../idp/sessions.ts";
import { createMailer } from "../../mail/mailer.ts";
import { secretCipherOf } from "../../secrets/context.ts";
import { actorOf } from "../audit/record.ts";
import type { Member } from "./repository.ts";
import { listMembers, listOpenInvitations } from "./repository.ts";
import * as invitations from "./invitations.ts";
import * as service from "./service.ts";
import {
  AcceptInvitationSchema,
  AccessInputSchema,
  InvitationAcceptedSchema,
  InvitationListSchema,
  InvitationParamsSchema,
  InvitationSentSchema,
  InviteSchema,
  MemberListSchema,
  MemberParamsSchema,
  MemberSchema,
  OutboxSchema,
} from "./schemas.ts";

/** Invitation e-mails per organization: each one reaches someone's inbox, so they are bounded. */
export const INVITATION_SEND_LIMIT = { max: 30, timeWindow: "1 hour" };

/**
 * Who works here and with which access is for people to decide, never an API client (whose token
 * has no person behind it and must never become an administrator): every route here is `people`.
 */
const read = { permission: { module: "members", value: "read" }, callers: "people" } as const;
const write = { permission: { module: "members", value: "write" }, callers: "people" } as const;
const tags = ["members"];

function memberView(m: Member, organizationId: string) {
  return {
    sub: m.sub,
    email: m.email,
    name: m.name,
    joinedAt: m.joinedAt.toISOString(),
    lastSignInAt: m.lastSignInAt?.toISOString() ?? null,
    ...service.accessView(accessOfClaims(m.claims, organizationId)),
    claims: m.claims,
  };
}

/** Members, their roles and invitations of the current organization (docs/administration.md). */
export async function memberRoutes(app: FastifyInstance) {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const { db } = app.ctx.database;
  const mailer = createMailer(app.ctx.config.mail);
  app.addHook("onClose", async () => mailer?.close());

  const deps: service.MembersDeps = {
    db,
    mailer,
    cipher: secretCipherOf(app.ctx),
    publicUrl: app.ctx.config.publicUrl,
    accessChanged(organizationId) {
      app.access.organizationChanged(organizationId);
    },
    membershipChanged({ type, organizationId, sub, name }) {
      app.bus
        .publish({ type, organizationId, platformId: ORGANIZATION_WIDE, sub, name })
        .catch((err: unknown) => app.log.warn({ err, organizationId, type }, "cannot publish a membership change on the bus"));
    },
    twoFactorReset({ organizationId, ...event }) {
      app.bus
        .publish({ type: "memberTwoFactorReset", organizationId, platformId: ORGANIZATION_WIDE, ...event })
        .catch((err: unknown) => app.log.warn({ err, organizationId }, "cannot publish a two-factor reset on the bus"));
    },
    endSessions: (sub) => endAllSessions(db, sub, app.access.revocations),
    log: app.log.child({ module: "members" }),
  };
  const sendLimit = {
    ...INVITATION_SEND_LIMIT,
    hook: "preHandler" as const,
    keyGenerator: (request: FastifyRequest) => `invitations|${request.organization.id}`,
    errorResponseBuilder: () => ({
      statusCode: 429,
      error: "Too Many Requests",
      message: `This organization has sent ${INVITATION_SEND_LIMIT.max} invitations in the last hour, the most allowed. Try again later.`,
    }),
  };
  const sentView = (r: Awaited<ReturnType<typeof invitations.invite>>) => ({
    invitation: invitations.invitationView(r.row),
    delivery: r.delivery,
    link: r.link,
  });

  api.get(
    "/members",
    { config: read, schema: { tags, summary: "Members of the current organization: role, permissions, last sign-in", response: { 200: MemberListSchema } } },
    // From the guard's cache, dropped when the organization's memberships or claims change.
    async (request) =>
      (await request.memberCached("members", () => listMembers(db, request.organization.id))).map((m) => memberView(m, request.organization.id)),
  );

  api.put(
    "/members/:sub",
    {
      config: write,
      schema: {
        tags,
        summary: "Give a member a role preset or module permissions (the last administrator cannot be demoted: 422)",
        description:
          'Only what the caller may give, to a member whose access the caller could have given, never to themselves: 403 otherwise (docs/security.md "Who may grant what").',
        params: MemberParamsSchema,
        body: AccessInputSchema,
        response: { 200: MemberSchema, 422: refusal("The last administrator cannot be demoted") },
      },
    },
    async (request) => memberView(await service.changeMemberAccess(deps, actorOf(request), request.params.sub, request.body), request.organization.id),
  );

  api.delete(
    "/members/:sub",
    {
      config: write,
      schema: {
        tags,
        summary: "Remove a member: their API access and live streams here end at once (not the last administrator: 422)",
        params: MemberParamsSchema,
        response: {
          204: z.null().meta({ description: "Removed" }),
          422: refusal("The last administrator cannot be removed"),
        },
      },
    },
    async (request, reply) => {
      await service.removeMember(deps, actorOf(request), request.params.sub);
      return reply.status(204).send(null);
    },
  );

  api.post(
    "/members/:sub/two-factor/reset",
    {
      config: write,
      schema: {
        tags,
        summary: "Reset a member's two-factor sign-in (a lost device): they must enrol a new device at their next sign-in",
        description:
          "Audited in every organization of the member, whose administrators get an inbox notice; the member is told by e-mail when SMTP_URL is set. 409 when the member does not use two-factor or a reset already waits for their enrolment. 403 for oneself, or a member holding more than the caller may give (an administrator's: administrators only).",
        params: MemberParamsSchema,
        response: {
          204: z.null().meta({ description: "Reset; the member enrols a new device at their next sign-in" }),
          409: refusal("The member does not use two-factor sign-in, or a reset already waits for their enrolment"),
        },
      },
    },
    async (request, reply) => {
      await service.resetMemberTwoFactor(deps, actorOf(request), request.params.sub);
      return reply.status(204).send(null);
    },
  );

  api.get(
    "/members/invitations",
    { config: read, schema: { tags, summary: "Invitations not yet accepted (pending or expired)", response: { 200: InvitationListSchema } } },
    async (request) => (await listOpenInvitations(db, request.organization.id)).map((r) => invitations.invitationView(r)),
  );

  api.post(
    "/members/invitations",
    {
      config: { ...write, rateLimit: sendLimit },
      schema: {
        tags,
        summary: "Invite someone by e-mail with a role: a single-use link valid for 7 days",
        description:
          "Only access the caller may give (403 otherwise). E-mailed through SMTP_URL; without it the message, without the link, goes to the outbox and the link is in the answer, once.",
        body: InviteSchema,
        response: { 201: InvitationSentSchema, 409: refusal("The person is already a member, or already has a pending invitation") },
      },
    },
    async (request, reply) => reply.status(201).send(sentView(await invitations.invite(deps, actorOf(request), request.body))),
  );

  api.post(
    "/members/invitations/:id/resend",
    {
      config: { ...write, rateLimit: sendLimit },
      schema: {
        tags,
        summary: "Send an invitation again with a new link (the previous link stops working), valid 7 days from now",
        params: InvitationParamsSchema,
        response: { 200: InvitationSentSchema },
      },
    },
    async (request) => sentView(await invitations.resendInvitation(deps, actorOf(request), request.params.id)),
  );

  api.delete(
    "/members/invitations/:id",
    { config: write, schema: { tags, summary: "Revoke an invitation: its link stops working", params: InvitationParamsSchema } },
    async (request, reply) => {
      await invitations.revokeInvitation(deps, actorOf(request), request.params.id);
      return reply.status(204).send();
    },
  );

  api.get(
    "/members/outbox",
    {
      config: write,
      schema: {
        tags,
        summary: "Messages that would have been e-mailed (no SMTP_URL set), newest first, at most 100; invitation links are not kept",
        response: { 200: OutboxSchema },
      },
    },
    async (request) => invitations.readOutbox(deps, request.organization.id),
  );

  api.post(
    "/invitations/accept",
    {
      config: { organization: "none" },
      schema: {
        tags,
        summary: "Accept an invitation as the signed-in person (its e-mail address must be the invited one)",
        body: AcceptInvitationSchema,
        response: {
          200: InvitationAcceptedSchema,
          404: refusal("No such invitation"),
          422: refusal("The invitation cannot be accepted: expired, revoked, used, for another e-mail address, or the address is not verified"),
        },
      },
    },
    async (request) => invitations.acceptInvitation(deps, { ...request.auth, ip: request.ip ?? null }, request.body.token),
  );
}
