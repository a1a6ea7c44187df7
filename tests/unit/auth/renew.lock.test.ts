// @vitest-environment node
import { describe, expect, it, vi } from "vitest";
import { createCrossTabLock, createStorageLock } from "~/auth/renew/lock";

/** Two "tabs" share one storage; each gets its own lock instance, as separate pages would. */
function sharedStorage() {
  const data = new Map<string, string>();
  return {
    getItem: (k: string) => data.get(k) ?? null,
    setItem: (k: string, v: string) => void data.set(k, v),
    removeItem: (k: string) => void data.delete(k),
    data,
  };
}

const fast = { settleMs: 2, pollMs: 2 };

describe("cross-tab lock", () => {
  it("uses the Web Locks API when the browser has it", async () => {
    const request = vi.fn((_name: string, _options: object, task: () => Promise<unknown>) => task());
    const lock = createCrossTabLock({ locks: { request } as never, storage: sharedStorage() });
    await expect(lock("renew", async () => 42)).resolves.toBe(42);
    expect(request).toHaveBeenCalledWith("renew", { mode: "exclusive" }, expect.any(Function));
  });

  it("falls back to local storage: two tabs never hold the lock at once", async () => {
    const storage = sharedStorage();
    const tabA = createStorageLock({ storage, ...fast });
    const tabB = createStorageLock({ storage, ...fast });
    let holders = 0;
    let maxHolders = 0;
    const work = async () => {
      holders++;
      maxHolders = Math.max(maxHolders, holders);
      await new Promise((r) => setTimeout(r, 10));
      holders--;
    };
    await Promise.all([tabA("renew", work), tabB("renew", work), tabA("renew", work), tabB("renew", work)]);
    expect(maxHolders).toBe(1);
    expect(storage.data.size).toBe(0); // released
  });

  it("takes over a lock whose holder died (expired entry)", async () => {
    const storage = sharedStorage();
    storage.setItem("toolbox-lock:renew", JSON.stringify({ owner: "closed-tab", expires: Date.now() - 1 }));
    const lock = createStorageLock({ storage, ...fast });
    await expect(lock("renew", async () => "ran")).resolves.toBe("ran");
  });

  it("reads an entry of another shape as no lock, rather than waiting on it forever", async () => {
    for (const stored of ["{}", '{"owner":"x","expires":"soon"}', "[1]", "not json"]) {
      const storage = sharedStorage();
      storage.setItem("toolbox-lock:renew", stored);
      const lock = createStorageLock({ storage, ...fast });
      await expect(lock("renew", async () => "ran")).resolves.toBe("ran");
    }
  });

  it("releases the lock when the task fails", async () => {
    const storage = sharedStorage();
    const lock = createStorageLock({ storage, ...fast });
    await expect(lock("renew", async () => Promise.reject(new Error("boom")))).rejects.toThrow("boom");
    expect(storage.getItem("toolbox-lock:renew")).toBeNull();
  });
});
