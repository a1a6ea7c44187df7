import { vi } from "vitest";
import { User } from "oidc-client-ts";

type Handler = (...args: never[]) => unknown;

/** A stand-in for VerifyingUserManager at the edge session.ts uses (its events and storage). */
export function fakeManager(initial: User | null) {
  const handlers = { loaded: [] as Handler[], unloaded: [] as Handler[], expiring: [] as Handler[], renewError: [] as Handler[] };
  const raise = async (list: Handler[], ...args: unknown[]) => {
    for (const h of list) await (h as (...a: unknown[]) => unknown)(...args);
  };
  const um = {
    stored: initial,
    storageKey: "oidc.user:test",
    readStoredUser: vi.fn(async () => um.stored),
    getUser: vi.fn(async (raiseEvent = false) => {
      if (um.stored && raiseEvent) await raise(handlers.loaded, um.stored);
      return um.stored;
    }),
    signinSilent: vi.fn(async (): Promise<User | null> => null),
    // Like a real redirect, it never settles: the page is leaving.
    signinRedirect: vi.fn(() => new Promise<void>(() => undefined)),
    signoutRedirect: vi.fn(async () => {
      um.stored = null;
      await raise(handlers.unloaded);
      return new Promise<void>(() => undefined);
    }),
    revokeTokens: vi.fn(async () => undefined),
    signinRedirectCallback: vi.fn(async (_url: string): Promise<User> => {
      um.stored = user();
      await raise(handlers.loaded, um.stored);
      return um.stored;
    }),
    signinSilentCallback: vi.fn(async (_url: string) => undefined),
    signoutRedirectCallback: vi.fn(async (_url: string) => ({})),
    events: {
      addUserLoaded: (h: Handler) => handlers.loaded.push(h),
      addUserUnloaded: (h: Handler) => handlers.unloaded.push(h),
      addAccessTokenExpiring: (h: Handler) => handlers.expiring.push(h),
      addSilentRenewError: (h: Handler) => handlers.renewError.push(h),
      _raiseSilentRenewError: (e: Error) => raise(handlers.renewError, e),
      unload: () => raise(handlers.unloaded),
    },
    fireExpiring: () => raise(handlers.expiring),
    /** What another tab's write looks like here. */
    storeFromOtherTab(user: User | null) {
      um.stored = user;
      window.dispatchEvent(new StorageEvent("storage", { key: um.storageKey }));
    },
  };
  return um;
}

export type FakeManager = ReturnType<typeof fakeManager>;

export function user(overrides: Partial<ConstructorParameters<typeof User>[0]> = {}): User {
  return new User({
    access_token: "at-1",
    refresh_token: "rt-1",
    id_token: "id-1",
    token_type: "Bearer",
    profile: { sub: "user-1", iss: "x", aud: "y", exp: 0, iat: 0 },
    expires_at: Math.floor(Date.now() / 1000) + 600,
    ...overrides,
  });
}
