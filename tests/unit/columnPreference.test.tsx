import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { act, cleanup, renderHook, waitFor } from "@testing-library/react";
import type { ReactNode } from "react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

vi.mock("~/auth", () => ({
  getFreshUser: vi.fn(async () => ({ access_token: "token", token_type: "Bearer", profile: { sub: "u1" } })),
  relogin: vi.fn(async () => {}),
}));

import { resetProfile, useMemberPreferences, useProfileStore } from "~/profile";
import { ColumnPreferenceProvider, SAVE_DELAY_MS, useColumnPreference, type ColumnPreferenceStore } from "~/ui/grid/columnPreference";
import type { SavedColumns } from "~/ui/grid/columnState";

const SAVED: SavedColumns = { version: 1, columns: [{ colId: "login", width: 120, hide: false, pinned: null, sort: "asc", sortIndex: 0 }] };
const WIDER: SavedColumns = { version: 1, columns: [{ colId: "login", width: 200, hide: false, pinned: null, sort: null, sortIndex: null }] };

function fakeStore(saved: unknown = null): ColumnPreferenceStore & { read: ReturnType<typeof vi.fn>; write: ReturnType<typeof vi.fn> } {
  return { scope: "org-1", read: vi.fn(async () => saved), write: vi.fn(async () => undefined) };
}

function wrapper(store: ColumnPreferenceStore | null) {
  const queryClient = new QueryClient();
  return ({ children }: { children: ReactNode }) => (
    <QueryClientProvider client={queryClient}>
      {store ? <ColumnPreferenceProvider store={store}>{children}</ColumnPreferenceProvider> : children}
    </QueryClientProvider>
  );
}

describe("a grid's saved columns (useColumnPreference)", () => {
  afterEach(() => {
    cleanup();
    vi.useRealTimers();
  });

  it("reads the layout saved under its key from the store the feature provides", async () => {
    const store = fakeStore(SAVED);
    const { result } = renderHook(() => useColumnPreference("users.grid.columns"), { wrapper: wrapper(store) });
    expect(result.current.ready).toBe(false);
    await waitFor(() => expect(result.current.ready).toBe(true));
    expect(result.current.saved).toEqual(SAVED);
    expect(store.read).toHaveBeenCalledWith("users.grid.columns", expect.any(AbortSignal));
  });

  it("is ready with the defaults when nothing is saved, the answer is malformed, or reading fails", async () => {
    for (const store of [fakeStore(null), fakeStore({ version: 9 }), { ...fakeStore(), read: vi.fn(async () => Promise.reject(new Error("down"))) }]) {
      const { result } = renderHook(() => useColumnPreference("k"), { wrapper: wrapper(store) });
      await waitFor(() => expect(result.current.ready).toBe(true));
      expect(result.current.saved).toBeNull();
      cleanup();
    }
  });

  it("saves a burst of changes once, after they settle, and what is pending when the grid goes away", async () => {
    vi.useFakeTimers();
    const store = fakeStore();
    const { result, unmount } = renderHook(() => useColumnPreference("k"), { wrapper: wrapper(store) });
    await act(() => vi.advanceTimersByTimeAsync(0));
    expect(result.current.ready).toBe(true);

    act(() => result.current.save(SAVED));
    act(() => result.current.save(WIDER));
    await act(() => vi.advanceTimersByTimeAsync(SAVE_DELAY_MS - 1));
    expect(store.write).not.toHaveBeenCalled();
    await act(() => vi.advanceTimersByTimeAsync(1));
    expect(store.write).toHaveBeenCalledTimes(1);
    expect(store.write).toHaveBeenCalledWith("k", WIDER);
    // The session's next visit starts from the saved state, not the one first read.
    expect(result.current.saved).toEqual(WIDER);

    act(() => result.current.save(SAVED));
    unmount();
    expect(store.write).toHaveBeenCalledTimes(2);
    expect(store.write).toHaveBeenLastCalledWith("k", SAVED);
  });

  it("keeps nothing without a store (no provider) or without a key", async () => {
    const none = renderHook(() => useColumnPreference("k"), { wrapper: wrapper(null) });
    expect(none.result.current).toMatchObject({ ready: true, saved: null });
    act(() => none.result.current.save(SAVED));
    expect(none.result.current.saved).toBeNull();

    const store = fakeStore(SAVED);
    const keyless = renderHook(() => useColumnPreference(undefined), { wrapper: wrapper(store) });
    expect(keyless.result.current).toMatchObject({ ready: true, saved: null });
    expect(store.read).not.toHaveBeenCalled();
  });
});

describe("the member's preferences (useMemberPreferences)", () => {
  const json = (body: unknown, status = 200) => new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } });

  beforeEach(() => {
    resetProfile();
    useProfileStore.setState({ currentOrganizationId: "org-1" });
    vi.stubGlobal("fetch", vi.fn());
  });
  afterEach(() => {
    cleanup();
    vi.unstubAllGlobals();
  });

  it("reads and writes /api/preferences/:key in the current organization", async () => {
    const { result } = renderHook(() => useMemberPreferences());
    expect(result.current.scope).toBe("org-1");

    vi.mocked(fetch).mockResolvedValueOnce(json({ key: "users.grid.columns", value: SAVED }));
    await expect(result.current.read("users.grid.columns", new AbortController().signal)).resolves.toEqual(SAVED);
    const [url, init] = vi.mocked(fetch).mock.calls[0]!;
    expect(url).toBe("/api/preferences/users.grid.columns");
    expect(new Headers(init!.headers).get("OrganizationId")).toBe("org-1");

    vi.mocked(fetch).mockResolvedValueOnce(json({ key: "a key/with slash", value: WIDER, updatedAt: "2026-01-01T00:00:00.000Z" }));
    await result.current.write("a key/with slash", WIDER);
    const [putUrl, putInit] = vi.mocked(fetch).mock.calls[1]!;
    expect(putUrl).toBe("/api/preferences/a%20key%2Fwith%20slash");
    expect(putInit!.method).toBe("PUT");
    expect(JSON.parse(putInit!.body as string)).toEqual({ value: WIDER });
  });

  it("reads a preference never saved as none, whether the API answers null or 404", async () => {
    const { result } = renderHook(() => useMemberPreferences());
    vi.mocked(fetch).mockResolvedValueOnce(json({ key: "k", value: null, updatedAt: null }));
    await expect(result.current.read("k", new AbortController().signal)).resolves.toBeNull();
    vi.mocked(fetch).mockResolvedValueOnce(json({ message: "Not found" }, 404));
    await expect(result.current.read("k", new AbortController().signal)).resolves.toBeNull();
  });
});
