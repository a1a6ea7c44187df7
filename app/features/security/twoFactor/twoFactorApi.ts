import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { api } from "~/api";

export interface TwoFactorStatus {
  available: boolean;
  enabled: boolean;
  enabledAt: string | null;
  recoveryCodesLeft: number;
}

export interface Enrolment {
  secret: string;
  uri: string;
  /** The QR code as a data: URL (SVG). */
  qrCode: string;
}

const key = ["profile", "two-factor"] as const;

/** The signed-in person's own two-factor sign-in: not about one organization. */
export function useTwoFactorStatus() {
  return useQuery({ queryKey: key, queryFn: ({ signal }) => api.get<TwoFactorStatus>("/api/profile/two-factor", { signal }) });
}

function useTwoFactorMutation<A, R>(fn: (args: A) => Promise<R>) {
  const queryClient = useQueryClient();
  return useMutation({ mutationFn: fn, onSettled: () => queryClient.invalidateQueries({ queryKey: key }) });
}

export const useStartEnrolment = () => useTwoFactorMutation(() => api.post<Enrolment>("/api/profile/two-factor/enrolment", undefined, { silent: true }));
export const useConfirmEnrolment = () =>
  useTwoFactorMutation((code: string) => api.post<{ recoveryCodes: string[] }>("/api/profile/two-factor/enrolment/confirm", { code }, { silent: true }));
export const useDisableTwoFactor = () => useTwoFactorMutation((code: string) => api.del("/api/profile/two-factor", { code }, { silent: true }));
