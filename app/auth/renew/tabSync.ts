/**
 * Calls `onChange` when another tab writes or removes the shared user record (the `storage` event
 * fires only in the other tabs of the origin). `key === null` means the storage was cleared.
 */
export function watchStoredUser(storageKey: string, onChange: () => void): () => void {
  const listener = (event: StorageEvent) => {
    if (event.key === storageKey || event.key === null) onChange();
  };
  window.addEventListener("storage", listener);
  return () => window.removeEventListener("storage", listener);
}
