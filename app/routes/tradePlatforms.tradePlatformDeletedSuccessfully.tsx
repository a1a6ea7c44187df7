import { CircleCheck } from "lucide-react";
import { Link } from "react-router";
import { Button } from "~/ui/Button";
import { EmptyState } from "~/ui/EmptyState";
import { Page } from "~/ui/Page";

export const meta = () => [{ title: "Trade platform deleted · Toolbox" }];

/** Where deleting a platform lands: confirmation and the way back. */
export default function TradePlatformDeletedPage() {
  return (
    <Page title="Trade platform deleted">
      <EmptyState
        icon={CircleCheck}
        title="The trade platform was deleted"
        description="Its connection, settings and application assignments are gone. Trades it already reported stay in the logs."
        action={
          <>
            <Button asChild>
              <Link to="/">Back to overview</Link>
            </Button>
            <Button asChild variant="secondary">
              <Link to="/tradePlatforms/new">Connect a platform</Link>
            </Button>
          </>
        }
      />
    </Page>
  );
}
