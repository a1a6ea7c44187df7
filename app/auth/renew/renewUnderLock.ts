import { ACCESS_TOKEN_EXPIRING_NOTICE_SECONDS, RENEW_LOCK_NAME } from "../constants";
import type { CrossTabLock } from "./lock";

interface ExpiringUser {
  expires_at?: number;
}

/** What renewal needs from the user manager (a seam for tests). */
export interface RenewableSession<U extends ExpiringUser> {
  /** The shared user record as stored right now (another tab may have replaced it). */
  readStoredUser(): Promise<U | null>;
  /** Make the stored record this tab's user (re-arms its expiry timers). */
  adoptStoredUser(): Promise<U | null>;
  /** Refresh-token grant (or silent re-authentication) that stores and returns the new user. */
  renew(): Promise<U | null>;
}

/** True when the access token is expired or inside the 60 s notice window before expiry. */
export function needsRenewal(user: ExpiringUser, nowSeconds: number): boolean {
  return user.expires_at !== undefined && user.expires_at - nowSeconds <= ACCESS_TOKEN_EXPIRING_NOTICE_SECONDS;
}

/**
 * Renew the shared tokens at most once across tabs. Refresh tokens rotate and a reused one revokes
 * the grant, so the refresh happens under a cross-tab lock, and inside it the stored record is read
 * again: if a tab that held the lock before us already renewed, we adopt its tokens instead of
 * spending the (now consumed) refresh token we still hold.
 */
export async function renewUnderLock<U extends ExpiringUser>(
  session: RenewableSession<U>,
  lock: CrossTabLock,
  nowSeconds: () => number = () => Math.floor(Date.now() / 1000),
): Promise<U | null> {
  return lock(RENEW_LOCK_NAME, async () => {
    const stored = await session.readStoredUser();
    if (!stored) return null; // signed out in another tab meanwhile
    if (!needsRenewal(stored, nowSeconds())) return session.adoptStoredUser();
    return session.renew();
  });
}
