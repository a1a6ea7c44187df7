import { useEffect, useState } from "react";
import { useNavigate } from "react-router";
import { completeSignIn, recoverFromSignInFailure } from "~/auth";
import { startLoginRedirect } from "~/auth/redirects";
import { configureFrom, useAuthConfig } from "~/auth/useAuthConfig";
import { Button } from "~/ui/Button";
import { FullScreenPlaceholder } from "~/ui/FullScreenPlaceholder";

export const meta = () => [{ title: "Signing in · Toolbox" }];

/**
 * Return page of sign-in (raw: no layout, no guard). Completes the code flow, verifies the ID token
 * and goes back to the page first asked for; a failure shows the error and starts a new login.
 */
export default function AuthCallbackPage() {
  const config = useAuthConfig();
  const navigate = useNavigate();
  const [stopped, setStopped] = useState(false);

  useEffect(() => {
    configureFrom(config);
    let active = true;
    completeSignIn().then(
      (target) => {
        // replace: the callback URL (code, state) must not stay in the history.
        if (active) void navigate(target, { replace: true });
      },
      (error: unknown) => {
        if (active && !recoverFromSignInFailure(error)) setStopped(true);
      },
    );
    return () => {
      active = false;
    };
  }, [config, navigate]);

  if (!stopped) return <FullScreenPlaceholder text="Signing in..." />;
  return (
    <main className="grid min-h-dvh place-items-center bg-bg p-6">
      <div role="alert" className="flex max-w-sm flex-col items-center gap-4 text-center">
        <h1 className="text-lg font-semibold">Sign-in did not complete</h1>
        <p className="text-sm text-muted">The identity provider's answer was refused twice in a row. Check the error shown, then try again.</p>
        <Button onClick={() => void startLoginRedirect()}>Sign in again</Button>
      </div>
    </main>
  );
}
