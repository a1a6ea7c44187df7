import type { PublicConfig } from "@core/publicConfig";
import type { AuthUser } from "~/auth";
import type { HealthReport } from "~/features/health";
import { selectCurrentOrganization, selectTradePlatforms } from "~/profile";
import type { ProfileData } from "~/profile/store";

export interface DiagnosticsInput {
  config: PublicConfig | undefined;
  user: AuthUser | null;
  profile: ProfileData;
  /** The last check of /api/health: how long the API took to answer. */
  ping: HealthReport | undefined;
  now: number;
}

/**
 * What support needs to know, as plain data for the page and for "Copy diagnostics". Tokens are
 * never included: only whether one is there and when it expires.
 */
export function collectDiagnostics({ config, user, profile, ping, now }: DiagnosticsInput) {
  const expiresAt = user?.expires_at ? user.expires_at * 1000 : undefined;
  const organization = selectCurrentOrganization(profile);
  return {
    generatedAt: new Date(now).toISOString(),
    build: { id: config?.buildId ?? "unknown", version: ping?.reachable ? ping.version : "unknown" },
    page: typeof window === "undefined" ? undefined : { url: window.location.href, userAgent: navigator.userAgent },
    identityProvider: { authority: config?.authority, clientId: config?.clientId },
    session: {
      sub: user?.profile.sub,
      email: user?.profile.email,
      name: user?.profile.name,
      scopes: user?.scope?.split(" ").filter(Boolean) ?? [],
      accessToken: user?.access_token ? "present" : "absent",
      refreshToken: user?.refresh_token ? "present" : "absent",
      expiresAt: expiresAt ? new Date(expiresAt).toISOString() : undefined,
      expiresInSeconds: expiresAt ? Math.round((expiresAt - now) / 1000) : undefined,
    },
    organization: organization ? { id: organization.id, name: organization.name, isAdmin: organization.isAdmin } : null,
    organizationCount: profile.organizations.length,
    tradePlatformCount: selectTradePlatforms(profile).length,
    claims: profile.claims,
    preflight: { done: profile.preflightDone, lastError: profile.preflightError, answer: profile.appConfig },
    api: ping ? { ok: ping.reachable && ping.status === "ok", status: ping.httpStatus, latencyMs: ping.latencyMs } : "not measured yet",
  };
}

export type Diagnostics = ReturnType<typeof collectDiagnostics>;

/** "4m 05s", "expired 12s ago". */
export function formatCountdown(seconds: number | undefined): string {
  if (seconds === undefined) return "unknown";
  const abs = Math.abs(seconds);
  const text = abs >= 60 ? `${Math.floor(abs / 60)}m ${String(abs % 60).padStart(2, "0")}s` : `${abs}s`;
  return seconds >= 0 ? text : `expired ${text} ago`;
}
