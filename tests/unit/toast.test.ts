import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { TOAST_QUEUE_CAP, TOAST_REMOVE_DELAY_MS, toast, useToastStore } from "~/ui/toast/store";

const titles = () => useToastStore.getState().toasts.map((t) => t.title);

describe("toast queue (SPEC §4, §9)", () => {
  beforeEach(() => {
    vi.useFakeTimers();
    useToastStore.getState().clear();
  });
  afterEach(() => vi.useRealTimers());

  it("adds toasts one at a time, open, with an id", () => {
    const id = toast({ title: "Saved", color: "success" });
    const [t] = useToastStore.getState().toasts;
    expect(t).toMatchObject({ id, open: true, title: "Saved", color: "success" });
  });

  it("keeps at most 5 and drops the oldest", () => {
    expect(TOAST_QUEUE_CAP).toBe(5);
    for (let i = 1; i <= 7; i++) toast({ title: `t${i}` });
    expect(titles()).toEqual(["t3", "t4", "t5", "t6", "t7"]);
  });

  it("marks a closed toast closed, then removes it after 200 ms", () => {
    expect(TOAST_REMOVE_DELAY_MS).toBe(200);
    const id = toast({ title: "Bye" });
    useToastStore.getState().close(id);
    expect(useToastStore.getState().toasts).toEqual([expect.objectContaining({ id, open: false })]);
    vi.advanceTimersByTime(199);
    expect(useToastStore.getState().toasts).toHaveLength(1);
    vi.advanceTimersByTime(1);
    expect(useToastStore.getState().toasts).toHaveLength(0);
  });

  it("replaces a toast sent again with the same id instead of stacking it", () => {
    toast({ id: "auth", title: "Authentication expired" });
    toast({ title: "other" });
    toast({ id: "auth", title: "Authentication expired" });
    expect(titles()).toEqual(["other", "Authentication expired"]);
  });

  it("closing twice schedules one removal only", () => {
    const id = toast({ title: "x" });
    useToastStore.getState().close(id);
    useToastStore.getState().close(id);
    expect(vi.getTimerCount()).toBe(1);
  });
});
