import { useEffect } from "react";
import { useNavigate } from "react-router";
import { completeSignOut, showAuthFailure } from "~/auth";
import { configureFrom, useAuthConfig } from "~/auth/useAuthConfig";
import { FullScreenPlaceholder } from "~/ui/FullScreenPlaceholder";

export const meta = () => [{ title: "Signed out · Toolbox" }];

/**
 * Return page of sign-out, for providers configured to come back here (ours returns to the site
 * root directly). After sign-out the return is the site root (docs/requirements.md#r-routes), whatever happened.
 */
export default function LogoutCallbackPage() {
  const config = useAuthConfig();
  const navigate = useNavigate();
  useEffect(() => {
    configureFrom(config);
    let active = true;
    // Never rejects (a failure is shown, then the way home is the same), so nothing to await.
    void completeSignOut()
      .catch((error: unknown) => {
        showAuthFailure(error);
        return "/";
      })
      .then((target) => {
        if (active) void navigate(target, { replace: true });
      });
    return () => {
      active = false;
    };
  }, [config, navigate]);
  return <FullScreenPlaceholder text="Signing out..." />;
}
