import type { PublicConfig } from "./publicConfig.ts";

/** What the server hands every React Router loader (getLoadContext in server/web). */
export type ToolboxLoadContext = {
  config: PublicConfig;
  /** Nonce of this response's Content-Security-Policy, for inline scripts. */
  cspNonce: string;
};
