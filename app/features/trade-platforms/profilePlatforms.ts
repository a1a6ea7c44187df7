import { useProfileStore, type TradePlatform } from "~/profile";

/**
 * The profile store holds the platform list the sidebar and overview show. After a create or a
 * rename the list is updated here rather than re-read, so the sidebar changes at once.
 */
export function upsertProfilePlatform(platform: TradePlatform) {
  useProfileStore.setState((s) => {
    const exists = s.tradePlatforms.some((p) => p.id === platform.id);
    return {
      tradePlatforms: exists ? s.tradePlatforms.map((p) => (p.id === platform.id ? { ...p, ...platform } : p)) : [...s.tradePlatforms, platform],
    };
  });
}
