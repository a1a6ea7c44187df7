import type { AppContext } from "./context.ts";

export interface SeedResult {
  /** Set only on the start that created the demo administrator. */
  demo?: { email: string; password?: string };
}

/** First start: the demo organization and its administrator (filled in by the identity work). */
export async function seedDemo(_ctx: AppContext): Promise<SeedResult> {
  return {};
}
