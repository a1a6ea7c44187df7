import { afterEach, describe, expect, it, vi } from "vitest";
import { MEMBER_CLAIMS_MAX_AGE_MS, MemberClaimsCache } from "../../../server/http/auth/memberCache.ts";
import { VerifiedTokenCache } from "../../../server/http/auth/tokenCache.ts";

afterEach(() => vi.useRealTimers());

describe("the verified-token cache", () => {
  const verified = (exp: number) => ({ caller: { sub: "s", email: null, emailVerified: false, name: null, amr: [] }, exp });

  it("forgets a token once it is past exp plus the tolerance", () => {
    vi.useFakeTimers({ now: 1_000_000_000_000 });
    const cache = new VerifiedTokenCache(60);
    const now = Date.now() / 1000;
    cache.set("a.b.c", verified(now + 10));
    expect(cache.get("a.b.c")?.exp).toBe(now + 10);
    vi.setSystemTime((now + 69) * 1000);
    expect(cache.get("a.b.c")).toBeDefined();
    vi.setSystemTime((now + 70) * 1000);
    expect(cache.get("a.b.c")).toBeUndefined();
  });

  it("knows only the exact token", () => {
    const cache = new VerifiedTokenCache(60);
    cache.set("a.b.c", verified(Date.now() / 1000 + 600));
    expect(cache.get("a.b.d")).toBeUndefined();
  });
});

describe("the member claims cache", () => {
  const claims = [{ type: "Module.members.o", value: "read" }];

  it("asks the database again after the maximum age, and after a change of the organization", async () => {
    vi.useFakeTimers({ now: 1_000_000_000_000 });
    const cache = new MemberClaimsCache(() => true);
    const load = vi.fn(async () => claims);
    await cache.claims("o", "s", load);
    await cache.claims("o", "s", load);
    expect(load).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(MEMBER_CLAIMS_MAX_AGE_MS);
    await cache.claims("o", "s", load);
    expect(load).toHaveBeenCalledTimes(2);
    cache.dropOrganization("o");
    await cache.claims("o", "s", load);
    expect(load).toHaveBeenCalledTimes(3);
  });

  it("does not keep what it read while a change happened", async () => {
    const cache = new MemberClaimsCache(() => true);
    let release!: () => void;
    const slow = () => new Promise<typeof claims>((resolve) => (release = () => resolve(claims)));
    const pending = cache.claims("o", "s", slow);
    cache.dropOrganization("o");
    release();
    await pending;
    const load = vi.fn(async () => []);
    expect(await cache.claims("o", "s", load)).toEqual([]);
    expect(load).toHaveBeenCalledTimes(1);
  });

  it("is not used while changes cannot be heard, and never remembers a non-member", async () => {
    let listening = false;
    const cache = new MemberClaimsCache(() => listening);
    const load = vi.fn(async () => claims);
    await cache.claims("o", "s", load);
    await cache.claims("o", "s", load);
    expect(load).toHaveBeenCalledTimes(2);
    listening = true;
    const none = vi.fn(async () => null);
    await cache.claims("o", "x", none);
    await cache.claims("o", "x", none);
    expect(none).toHaveBeenCalledTimes(2);
  });
});
