/** The copy links' API paths and query keys (server/modules/tradesCopier/routes.ts). */
export const LINKS_PATH = "/api/tradesCopier/links";
export const PLATFORMS_PATH = "/api/tradesCopier/platforms";
export const LINKS_GRID_STATE_KEY = "tradesCopier.links.columns";

export interface CopierPlatform {
  id: string;
  name: string;
  type: string;
}

export const linksKey = (organizationId: string | null) => ["tradesCopier", organizationId, "links"];
export const platformsKey = (organizationId: string | null) => ["tradesCopier", organizationId, "platforms"];
