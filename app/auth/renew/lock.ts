/** Runs `task` while holding the named lock, exclusive across every tab of this origin. */
export type CrossTabLock = <T>(name: string, task: () => Promise<T>) => Promise<T>;

interface LockManagerLike {
  request<T>(name: string, options: { mode: "exclusive" }, callback: () => Promise<T>): Promise<T>;
}

export interface StorageLockOptions {
  storage: Pick<Storage, "getItem" | "setItem" | "removeItem">;
  /** A holder that crashed (tab closed mid-renewal) stops blocking after this long. */
  ttlMs?: number;
  /** Time for a racing tab's write to land before we check who won. */
  settleMs?: number;
  pollMs?: number;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
  newOwnerId?: () => string;
}

/**
 * The Web Locks API where the browser has it (every current one); otherwise a lock in local storage.
 * The fallback is best effort — write, wait, check we are still the writer — which is enough to keep
 * two tabs from refreshing at the same instant; Web Locks are exact.
 */
export function createCrossTabLock(env: { locks?: LockManagerLike; storage?: StorageLockOptions["storage"] } = browserEnv()): CrossTabLock {
  const { locks, storage } = env;
  if (locks) return (name, task) => locks.request(name, { mode: "exclusive" }, task);
  if (storage) return createStorageLock({ storage });
  // No shared storage at all: tabs cannot share tokens either, so there is nothing to coordinate.
  return (_name, task) => task();
}

function browserEnv(): { locks?: LockManagerLike; storage?: Storage } {
  if (typeof window === "undefined") return {};
  return { locks: (navigator as { locks?: LockManagerLike }).locks, storage: window.localStorage };
}

export function createStorageLock(options: StorageLockOptions): CrossTabLock {
  const {
    storage,
    ttlMs = 20_000, // above the 10 s silent request timeout, so a live holder is never overtaken
    settleMs = 50,
    pollMs = 100,
    now = Date.now,
    sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    // getRandomValues, unlike randomUUID, exists outside secure contexts too — where this fallback runs.
    newOwnerId = () => Array.from(crypto.getRandomValues(new Uint32Array(4)), (n) => n.toString(36)).join(""),
  } = options;

  /** What a tab wrote under the key: `{ owner, expires }`, but read as anything (another version, a hand edit). */
  const read = (key: string): { owner?: unknown; expires?: unknown } | null => {
    try {
      return JSON.parse(storage.getItem(key) ?? "null") as { owner?: unknown; expires?: unknown } | null;
    } catch {
      return null;
    }
  };

  return async (name, task) => {
    const key = `toolbox-lock:${name}`;
    const owner = newOwnerId();
    for (;;) {
      const held = read(key);
      // Held while its expiry is ahead; an entry without a number there counts as expired, never as held forever.
      if (!(Number(held?.expires) > now())) {
        storage.setItem(key, JSON.stringify({ owner, expires: now() + ttlMs }));
        await sleep(settleMs);
        if (read(key)?.owner === owner) break;
      }
      await sleep(pollMs);
    }
    try {
      return await task();
    } finally {
      if (read(key)?.owner === owner) storage.removeItem(key);
    }
  };
}
