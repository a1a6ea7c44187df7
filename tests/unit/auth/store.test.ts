import { beforeEach, describe, expect, it } from "vitest";
import { setAuthUser, useAuthStore } from "~/auth/store";
import { AUTH_STORAGE_KEY } from "~/auth/constants";

const user = {
  access_token: "secret-access-token",
  refresh_token: "secret-refresh-token",
  id_token: "secret-id-token",
  token_type: "Bearer",
  profile: { sub: "user-1" },
  expires_at: 2_000_000_000,
};

beforeEach(() => {
  localStorage.clear();
  setAuthUser(null);
  useAuthStore.setState({ redirect_uri: null, isRaw: false });
});

describe("auth store (docs/requirements.md#r-entities)", () => {
  it("holds the docs/requirements.md#r-entities fields", () => {
    setAuthUser(user);
    expect(useAuthStore.getState()).toMatchObject({ user, isAuthenticated: true, access_token: user.access_token, isAnonymous: false, isRaw: false });
    setAuthUser(null);
    expect(useAuthStore.getState()).toMatchObject({ user: null, isAuthenticated: false, access_token: null, isAnonymous: true });
  });

  it("persists only redirect_uri, under 'toolbox-auth' in local storage", () => {
    setAuthUser(user);
    useAuthStore.setState({ redirect_uri: "/settings/members?tab=1#top", isRaw: true });
    const saved = JSON.parse(localStorage.getItem(AUTH_STORAGE_KEY)!);
    expect(saved.state).toEqual({ redirect_uri: "/settings/members?tab=1#top" });
    expect(JSON.stringify(saved)).not.toContain("secret");
  });

  it("restores redirect_uri and nothing else, even from a tampered entry", async () => {
    localStorage.setItem(
      AUTH_STORAGE_KEY,
      JSON.stringify({ version: 1, state: { redirect_uri: "/inbox", isAuthenticated: true, access_token: "forged", user: { profile: { sub: "x" } } } }),
    );
    await useAuthStore.persist.rehydrate();
    expect(useAuthStore.getState()).toMatchObject({ redirect_uri: "/inbox", isAuthenticated: false, access_token: null, user: null });
  });

  it("refuses a stored return target that leaves the origin", async () => {
    for (const target of ["https://evil.test/", "//evil.test/x", "/\\evil.test", "javascript:alert(1)"]) {
      localStorage.setItem(AUTH_STORAGE_KEY, JSON.stringify({ version: 1, state: { redirect_uri: target } }));
      await useAuthStore.persist.rehydrate();
      expect(useAuthStore.getState().redirect_uri).toBeNull();
    }
  });
});
