import { useRouteLoaderData } from "react-router";
import type { PublicConfig } from "@core/publicConfig";

/** The deployment facts the root loader hands the browser (build id, identity provider). */
export function usePublicConfig(): PublicConfig | undefined {
  return useRouteLoaderData<{ config?: PublicConfig }>("root")?.config;
}
