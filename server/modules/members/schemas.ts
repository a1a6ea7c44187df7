import { z } from "zod";
import { ClaimSchema } from "../profile/schemas.ts";

export const MemberSchema = z.object({
  sub: z.string(),
  email: z.string().nullable(),
  name: z.string().nullable(),
  joinedAt: z.iso.datetime(),
  claims: z.array(ClaimSchema),
});

export const MemberListSchema = z.array(MemberSchema);
