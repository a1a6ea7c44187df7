import { FlaskConical, PlugZap, Server } from "lucide-react";
import { Link } from "react-router";
import { Button } from "~/ui/Button";
import { Card, CardContent } from "~/ui/Card";

/** The overview of an organization with no platform yet: what to do first, and that it's safe to try. */
export function FirstRun() {
  return (
    <Card className="overflow-hidden">
      <CardContent className="grid gap-8 p-6 sm:p-8 lg:grid-cols-[1fr_auto] lg:items-center">
        <div className="max-w-2xl">
          <h2 className="text-xl font-semibold tracking-tight">Connect your first trade platform</h2>
          <p className="mt-2 text-sm text-muted">
            Toolbox works on your MetaTrader 4, MetaTrader 5 and Match-Trader servers. Not ready to connect a real one? Start with a
            <strong className="font-semibold text-fg"> simulated server</strong> of any type: live prices and simulated traders opening and closing positions,
            so you can try the blotter, the copier and Flexible Leverage before touching production.
          </p>
          <ul className="mt-5 grid gap-3 text-sm sm:grid-cols-2">
            <li className="flex gap-3">
              <FlaskConical aria-hidden className="mt-0.5 size-4 shrink-0 text-primary" />
              <span>
                <span className="font-medium">Simulated server</span>
                <span className="block text-muted">Ready in seconds, nothing to install.</span>
              </span>
            </li>
            <li className="flex gap-3">
              <Server aria-hidden className="mt-0.5 size-4 shrink-0 text-primary" />
              <span>
                <span className="font-medium">Your own server</span>
                <span className="block text-muted">Manager credentials or an API key, tested before saving.</span>
              </span>
            </li>
          </ul>
        </div>
        <Button asChild size="lg">
          <Link to="/tradePlatforms/new">
            <PlugZap aria-hidden />
            Connect a platform
          </Link>
        </Button>
      </CardContent>
    </Card>
  );
}
