import { act, cleanup, renderHook } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { LOADING_BAR, estimatedProgress, useLoadingIndicator } from "~/ui/loadingBar/useLoadingIndicator";

describe("loading bar (docs/requirements.md#r-constants)", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => {
    cleanup();
    vi.useRealTimers();
  });

  it("uses the spec's constants", () => {
    expect(LOADING_BAR).toEqual({ throttle: 200, duration: 2000, hide: 500, resetDelay: 400, height: 3 });
  });

  it("grows quickly then slows, never reaching 100 % by itself", () => {
    expect(estimatedProgress(2000, 0)).toBe(0);
    expect(estimatedProgress(2000, 2000)).toBeGreaterThan(60);
    expect(estimatedProgress(2000, 60_000)).toBeLessThan(100);
  });

  it("stays hidden for loads shorter than the 200 ms throttle", async () => {
    const { result, rerender } = renderHook(({ loading }) => useLoadingIndicator(loading), { initialProps: { loading: true } });
    await act(() => vi.advanceTimersByTimeAsync(150));
    rerender({ loading: false });
    await act(() => vi.advanceTimersByTimeAsync(2000));
    expect(result.current).toEqual({ visible: false, progress: 0 });
  });

  it("shows after 200 ms, fills on finish, hides 500 ms later and resets 400 ms after that", async () => {
    const { result, rerender } = renderHook(({ loading }) => useLoadingIndicator(loading), { initialProps: { loading: true } });
    await act(() => vi.advanceTimersByTimeAsync(199));
    expect(result.current.visible).toBe(false);
    await act(() => vi.advanceTimersByTimeAsync(300));
    expect(result.current.visible).toBe(true);
    expect(result.current.progress).toBeGreaterThan(0);
    rerender({ loading: false });
    expect(result.current).toEqual({ visible: true, progress: 100 });
    await act(() => vi.advanceTimersByTimeAsync(499));
    expect(result.current.visible).toBe(true);
    await act(() => vi.advanceTimersByTimeAsync(1));
    expect(result.current).toEqual({ visible: false, progress: 100 });
    await act(() => vi.advanceTimersByTimeAsync(400));
    expect(result.current).toEqual({ visible: false, progress: 0 });
  });
});
