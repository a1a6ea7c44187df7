import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { registerToaster, TOAST_QUEUE_CAP, TOAST_REMOVE_DELAY_MS, toast, toastsOnScreen, useToastStore } from "~/ui/toast/store";

const titles = () => useToastStore.getState().toasts.map((t) => t.title);

describe("toast queue (docs/requirements.md#r-states, docs/requirements.md#r-constants)", () => {
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

describe("waiting for a toast to be on screen (the sign-in redirect's warning)", () => {
  beforeEach(() => useToastStore.getState().clear());
  afterEach(() => document.body.replaceChildren());

  it("resolves at once when no toaster is on the page, or no toast waits", async () => {
    toast({ title: "Authentication expired" });
    await expect(toastsOnScreen(60_000)).resolves.toBeUndefined();
    const unregister = registerToaster();
    useToastStore.getState().clear();
    await expect(toastsOnScreen(60_000)).resolves.toBeUndefined();
    unregister();
  });

  it("with a toaster and a waiting toast, resolves only once the toast is in the page", async () => {
    const unregister = registerToaster();
    toast({ title: "Authentication expired" });
    let settled = false;
    const waiting = toastsOnScreen(60_000).then(() => (settled = true));
    await new Promise((r) => setTimeout(r, 100));
    expect(settled).toBe(false);
    const el = document.createElement("li");
    el.setAttribute("data-toast", "warning");
    document.body.append(el);
    await waiting;
    expect(settled).toBe(true);
    unregister();
  });

  it("gives up after the wait, so a missing toaster never blocks the redirect", async () => {
    const unregister = registerToaster();
    toast({ title: "Authentication expired" });
    await expect(toastsOnScreen(50)).resolves.toBeUndefined();
    unregister();
  });
});
