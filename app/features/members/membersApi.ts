import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { InvitationSent, InvitationView, MemberView } from "@core/schemas/members";
import type { ModulePermissions, RolePreset } from "@core/roles";
import { api } from "~/api";
import { useCurrentOrganizationId } from "~/profile";

export type AccessChoice = { role: RolePreset } | { permissions: ModulePermissions };
export interface OutboxMessage {
  id: string;
  to: string;
  subject: string;
  text: string;
  createdAt: string;
}

const keys = {
  members: (org: string | null) => ["members", org] as const,
  invitations: (org: string | null) => ["members", org, "invitations"] as const,
  outbox: (org: string | null) => ["members", org, "outbox"] as const,
};

export function useMembers() {
  const org = useCurrentOrganizationId();
  return useQuery({ queryKey: keys.members(org), queryFn: () => api.get<MemberView[]>("/api/members"), enabled: Boolean(org) });
}

export function useInvitations() {
  const org = useCurrentOrganizationId();
  return useQuery({ queryKey: keys.invitations(org), queryFn: () => api.get<InvitationView[]>("/api/members/invitations"), enabled: Boolean(org) });
}

export function useOutbox(enabled: boolean) {
  const org = useCurrentOrganizationId();
  return useQuery({ queryKey: keys.outbox(org), queryFn: () => api.get<OutboxMessage[]>("/api/members/outbox"), enabled: Boolean(org) && enabled });
}

/** Every write refreshes the members, invitations and outbox of the organization. */
function useMembersMutation<A, R>(fn: (args: A) => Promise<R>) {
  const queryClient = useQueryClient();
  const org = useCurrentOrganizationId();
  return useMutation({
    mutationFn: fn,
    onSettled: () => queryClient.invalidateQueries({ queryKey: ["members", org] }),
  });
}

export const useInvite = () =>
  useMembersMutation((body: { email: string } & AccessChoice) => api.post<InvitationSent>("/api/members/invitations", body, { silent: true }));
export const useResend = () => useMembersMutation((id: string) => api.post<InvitationSent>(`/api/members/invitations/${id}/resend`));
export const useRevoke = () => useMembersMutation((id: string) => api.del(`/api/members/invitations/${id}`));
export const useChangeAccess = () =>
  useMembersMutation(({ sub, access }: { sub: string; access: AccessChoice }) => api.put<MemberView>(`/api/members/${encodeURIComponent(sub)}`, access));
export const useRemoveMember = () => useMembersMutation((sub: string) => api.del(`/api/members/${encodeURIComponent(sub)}`));
export const useResetTwoFactor = () => useMembersMutation((sub: string) => api.post(`/api/members/${encodeURIComponent(sub)}/two-factor/reset`));
