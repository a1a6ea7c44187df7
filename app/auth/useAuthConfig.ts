import { useRouteLoaderData } from "react-router";
import type { PublicConfig } from "@core/publicConfig";
import { configureAuth } from "./manager";

/**
 * The provider settings the root loader returns (`{ config }`, route id "root"). Components of this
 * layer call `configureAuth` with it in their effects: child effects run before the shell's, so the
 * callback pages cannot rely on the guard having done it.
 */
export function useAuthConfig(): PublicConfig | undefined {
  return useRouteLoaderData<{ config?: PublicConfig }>("root")?.config;
}

export function configureFrom(config: PublicConfig | undefined): void {
  if (config) configureAuth(config);
}
