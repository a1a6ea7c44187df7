import { CircleCheck, Plus } from "lucide-react";
import { Link, useLocation } from "react-router";
import { Button } from "~/ui/Button";
import { EmptyState } from "~/ui/EmptyState";
import { Page } from "~/ui/Page";

export const meta = () => [{ title: "Trade platform deleted · Toolbox" }];

/** Where deleting a platform lands: confirmation and the way back. */
export default function TradePlatformDeletedPage() {
  const state: unknown = useLocation().state;
  const name = state && typeof state === "object" && typeof (state as { name?: unknown }).name === "string" ? (state as { name: string }).name : null;
  return (
    <Page title="Trade platform deleted">
      <EmptyState
        icon={CircleCheck}
        title={name ? `${name} was deleted` : "The trade platform was deleted"}
        description="Toolbox disconnected from it and forgot its connection, settings and application assignments. The server itself was not changed, and what Toolbox already recorded about it stays in the logs."
        action={
          <>
            <Button asChild>
              <Link to="/">Back to overview</Link>
            </Button>
            <Button asChild variant="secondary">
              <Link to="/tradePlatforms/new">
                <Plus aria-hidden />
                Connect a platform
              </Link>
            </Button>
          </>
        }
      />
    </Page>
  );
}
