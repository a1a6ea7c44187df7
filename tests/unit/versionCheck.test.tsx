import { cleanup, renderHook } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { NEW_VERSION_TITLE, VERSION_CHECK_INTERVAL_MS, useNewVersionCheck } from "~/features/version-check/useNewVersionCheck";
import { useToastStore } from "~/ui/toast/store";

const latest = (id: string) =>
  vi.mocked(fetch).mockResolvedValue(new Response(JSON.stringify({ id, timestamp: 1 }), { headers: { "Content-Type": "application/json" } }));
const versionToasts = () => useToastStore.getState().toasts.filter((t) => t.title === NEW_VERSION_TITLE);

describe("new-version check (docs/requirements.md#r-states)", () => {
  beforeEach(() => {
    vi.useFakeTimers();
    useToastStore.getState().clear();
    vi.stubGlobal("fetch", vi.fn());
  });
  afterEach(() => {
    cleanup();
    vi.useRealTimers();
    vi.unstubAllGlobals();
  });

  it("asks builds/latest.json with a timestamp every 5 minutes and on focus", async () => {
    latest("build-1");
    renderHook(() => useNewVersionCheck("build-1"));
    expect(fetch).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(VERSION_CHECK_INTERVAL_MS);
    expect(fetch).toHaveBeenCalledTimes(1);
    expect(vi.mocked(fetch).mock.calls[0]![0]).toMatch(/^\/builds\/latest\.json\?t=\d+$/);
    window.dispatchEvent(new Event("focus"));
    await vi.advanceTimersByTimeAsync(0);
    expect(fetch).toHaveBeenCalledTimes(2);
    expect(versionToasts()).toHaveLength(0);
  });

  it("offers a reload once when another build is deployed", async () => {
    latest("build-2");
    renderHook(() => useNewVersionCheck("build-1"));
    window.dispatchEvent(new Event("focus"));
    await vi.advanceTimersByTimeAsync(0);
    const [t] = versionToasts();
    if (!t) throw new Error("no new-version toast");
    expect(t.action?.label).toBe("Reload");
    useToastStore.getState().remove(t.id);
    window.dispatchEvent(new Event("focus"));
    await vi.advanceTimersByTimeAsync(VERSION_CHECK_INTERVAL_MS);
    expect(versionToasts()).toHaveLength(0);
  });

  it("never checks a development build", async () => {
    latest("other");
    renderHook(() => useNewVersionCheck("dev"));
    window.dispatchEvent(new Event("focus"));
    await vi.advanceTimersByTimeAsync(VERSION_CHECK_INTERVAL_MS * 2);
    expect(fetch).not.toHaveBeenCalled();
  });

  it("keeps quiet when the manifest cannot be read", async () => {
    vi.mocked(fetch).mockRejectedValue(new TypeError("offline"));
    renderHook(() => useNewVersionCheck("build-1"));
    window.dispatchEvent(new Event("focus"));
    await vi.advanceTimersByTimeAsync(0);
    expect(useToastStore.getState().toasts).toEqual([]);
  });
});
