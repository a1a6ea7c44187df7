import { useEffect } from "react";
import { completeSilentSignIn, showAuthFailure } from "~/auth";
import { configureFrom, useAuthConfig } from "~/auth/useAuthConfig";

export const meta = () => [{ title: "Renewing · Toolbox" }];

/**
 * Return page of background renewal without a refresh token: it runs in a hidden iframe and only
 * passes the provider's answer to the parent window, which verifies and stores it.
 */
export default function SilentRenewPage() {
  const config = useAuthConfig();
  useEffect(() => {
    configureFrom(config);
    completeSilentSignIn().catch(showAuthFailure);
  }, [config]);
  return null;
}
