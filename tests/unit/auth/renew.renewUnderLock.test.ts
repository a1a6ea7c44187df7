import { describe, expect, it, vi } from "vitest";
import { needsRenewal, renewUnderLock, type RenewableSession } from "~/auth/renew/renewUnderLock";
import { createStorageLock } from "~/auth/renew/lock";

interface FakeUser {
  access_token: string;
  refresh_token: string;
  expires_at: number;
}

const NOW = 1_000_000;
const now = () => NOW;

/** One shared user record (local storage), and a provider whose refresh tokens rotate and are single-use. */
function world() {
  let stored: FakeUser | null = { access_token: "at-1", refresh_token: "rt-1", expires_at: NOW + 30 };
  const spent = new Set<string>();
  let issued = 1;
  const refresh = async (refreshToken: string): Promise<FakeUser> => {
    await new Promise((r) => setTimeout(r, 5));
    if (spent.has(refreshToken)) throw new Error("invalid_grant: refresh token reused, grant revoked");
    spent.add(refreshToken);
    issued++;
    return { access_token: `at-${issued}`, refresh_token: `rt-${issued}`, expires_at: NOW + 600 };
  };
  return {
    get stored() {
      return stored;
    },
    set stored(u) {
      stored = u;
    },
    refresh,
    get refreshes() {
      return issued - 1;
    },
  };
}

/** A tab: it holds its own copy of the user (read when the tab loaded) and renews through the shared store. */
function tab(w: ReturnType<typeof world>) {
  const seen = w.stored!;
  const session: RenewableSession<FakeUser> & { adopted: number; renewed: number } = {
    adopted: 0,
    renewed: 0,
    readStoredUser: async () => w.stored,
    adoptStoredUser: async () => {
      session.adopted++;
      return w.stored;
    },
    renew: async () => {
      session.renewed++;
      // oidc-client-ts's signinSilent reads the stored user's refresh token.
      const next = await w.refresh(w.stored!.refresh_token);
      w.stored = next;
      return next;
    },
  };
  return { session, seen };
}

describe("renewal under the cross-tab lock", () => {
  it("needs renewal inside the 60 s notice window or after expiry, not before", () => {
    expect(needsRenewal({ expires_at: NOW + 61 }, NOW)).toBe(false);
    expect(needsRenewal({ expires_at: NOW + 60 }, NOW)).toBe(true);
    expect(needsRenewal({ expires_at: NOW - 5 }, NOW)).toBe(true);
    expect(needsRenewal({}, NOW)).toBe(false);
  });

  it("adopts another tab's renewal instead of spending the consumed refresh token", async () => {
    const w = world();
    const storage = new Map<string, string>();
    const shared = {
      getItem: (k: string) => storage.get(k) ?? null,
      setItem: (k: string, v: string) => void storage.set(k, v),
      removeItem: (k: string) => void storage.delete(k),
    };
    const a = tab(w);
    const b = tab(w);
    const lockA = createStorageLock({ storage: shared, settleMs: 2, pollMs: 2 });
    const lockB = createStorageLock({ storage: shared, settleMs: 2, pollMs: 2 });

    // Both tabs' "expiring" timers fire together.
    const [userA, userB] = await Promise.all([renewUnderLock(a.session, lockA, now), renewUnderLock(b.session, lockB, now)]);

    expect(w.refreshes).toBe(1);
    expect(a.session.renewed + b.session.renewed).toBe(1);
    expect(a.session.adopted + b.session.adopted).toBe(1);
    expect(userA).toEqual(w.stored);
    expect(userB).toEqual(w.stored);
  });

  it("without the lock, the second tab would reuse the rotated token and lose the grant", async () => {
    const w = world();
    const a = tab(w);
    const b = tab(w);
    const noLock = <T>(_: string, task: () => Promise<T>) => task();
    // Without a lock both read the same stored refresh token before either writes.
    const stale = { ...a.session, renew: async () => w.refresh(a.seen.refresh_token) };
    const stale2 = { ...b.session, renew: async () => w.refresh(b.seen.refresh_token) };
    const results = await Promise.allSettled([renewUnderLock(stale, noLock, now), renewUnderLock(stale2, noLock, now)]);
    expect(results.map((r) => r.status).sort()).toEqual(["fulfilled", "rejected"]);
  });

  it("returns null when the user was signed out meanwhile, without renewing", async () => {
    const session = { readStoredUser: async () => null, adoptStoredUser: vi.fn(), renew: vi.fn() };
    await expect(renewUnderLock(session, (_, task) => task(), now)).resolves.toBeNull();
    expect(session.renew).not.toHaveBeenCalled();
  });

  it("lets a renewal failure reach the caller (who raises the silent renew error)", async () => {
    const w = world();
    const a = tab(w);
    const session = { ...a.session, renew: async () => Promise.reject(new Error("Network Error")) };
    await expect(renewUnderLock(session, (_, t) => t(), now)).rejects.toThrow("Network Error");
  });
});
