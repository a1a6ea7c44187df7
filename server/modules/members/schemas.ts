import { z } from "zod";
import {
  AcceptInvitationSchema,
  AccessInputSchema,
  InvitationAcceptedSchema,
  InvitationSchema,
  InvitationSentSchema,
  InviteSchema,
  MemberSchema,
  OutboxMessageSchema,
} from "../../../core/schemas/members.ts";

export { AcceptInvitationSchema, AccessInputSchema, InvitationAcceptedSchema, InvitationSchema, InvitationSentSchema, InviteSchema, MemberSchema };

export const MemberListSchema = z.array(MemberSchema);
export const InvitationListSchema = z.array(InvitationSchema);
export const OutboxSchema = z.array(OutboxMessageSchema);

export const MemberParamsSchema = z.object({
  sub: z.string().min(1).max(255, { error: "This is not a member's id." }),
});

export const InvitationParamsSchema = z.object({
  id: z.guid({ error: "The invitation id must be a UUID." }),
});
