import { create } from "zustand";

/**
 * Work in flight that the loading bar should reflect (API calls). The API client wraps each call
 * in `trackActivity`; the bar reads `pending`.
 */
export const useActivityStore = create<{ pending: number }>()(() => ({ pending: 0 }));

export async function trackActivity<T>(work: () => Promise<T>): Promise<T> {
  useActivityStore.setState((s) => ({ pending: s.pending + 1 }));
  try {
    return await work();
  } finally {
    useActivityStore.setState((s) => ({ pending: Math.max(0, s.pending - 1) }));
  }
}
