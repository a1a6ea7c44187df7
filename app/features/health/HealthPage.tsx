import { CircleCheck, CircleX, RefreshCw, TriangleAlert } from "lucide-react";
import { useEffect } from "react";
import { Link } from "react-router";
import { createFormatter } from "@core/format";
import { applyCachedDisplay } from "~/profile/displayPreference";
import { Badge } from "~/ui/Badge";
import { buttonClasses } from "~/ui/Button";
import { Card } from "~/ui/Card";
import { cn } from "~/ui/cn";
import { useFormat } from "~/ui/format";
import { ToolboxMark } from "~/ui/ToolboxMark";
import { useHydrated } from "~/ui/useHydrated";
import { dependencyName, type HealthReport } from "./fetchHealth";

/** What the server writes (no member known there): UTC, said so. */
const serverFormat = createFormatter({ locale: "en-GB", timeZone: "UTC" });

/**
 * When the report was made: in UTC as the server renders it, then, in the browser, through
 * core/format.ts in the member's zone (their own, else the organization's, as last seen here).
 */
function CheckedAt({ at }: { at: string }) {
  const inBrowser = useHydrated();
  useEffect(() => applyCachedDisplay(), []);
  const member = useFormat();
  const format = inBrowser ? member : serverFormat;
  return (
    <time dateTime={at} data-testid="health-checked-at">
      {format.dateTime(at)} ({format.timeZone})
    </time>
  );
}

/**
 * /health: is the service up, its version, each dependency. Plain HTML from the server, so it
 * reads the same with JavaScript off; "Check again" is a link that reloads it either way.
 */
export function HealthPage({ report }: { report: HealthReport }) {
  const verdict = !report.reachable ? "down" : report.status === "ok" ? "ok" : "degraded";
  const { Icon, title, tone } = VERDICTS[verdict];
  return (
    <main className="mx-auto grid min-h-dvh max-w-2xl content-start gap-6 px-4 py-10 sm:py-16">
      <header className="flex items-center gap-3">
        <ToolboxMark className="size-8" />
        <h1 className="text-xl font-semibold tracking-tight">Toolbox status</h1>
      </header>
      <Card className={cn("flex items-center gap-4 border-l-4 p-5", tone.border)} role="status">
        <Icon aria-hidden className={cn("size-8 shrink-0", tone.text)} />
        <div className="min-w-0 flex-1">
          <p className="text-lg font-semibold">{title}</p>
          <p className="text-sm text-muted">
            {report.reachable ? `Version ${report.version}` : report.error} · checked <CheckedAt at={report.checkedAt} />
          </p>
        </div>
        <Link to="/health" className={buttonClasses("secondary", "sm")}>
          <RefreshCw aria-hidden />
          Check again
        </Link>
      </Card>
      {report.reachable ? (
        <Card>
          <h2 className="border-b border-border px-5 py-3 text-sm font-semibold">Dependencies</h2>
          <ul className="divide-y divide-border">
            {Object.entries(report.dependencies).map(([key, dep]) => (
              <li key={key} className="flex items-center justify-between gap-4 px-5 py-3">
                <div className="min-w-0">
                  <p className="font-medium">{dependencyName(key)}</p>
                  {dep.detail ? <p className="truncate text-xs text-muted">{dep.detail}</p> : null}
                </div>
                <Badge tone={BADGES[dep.state].tone}>{BADGES[dep.state].label}</Badge>
              </li>
            ))}
          </ul>
        </Card>
      ) : null}
      <p className="text-xs text-muted">
        Probes read the same as JSON at{" "}
        <a href="/api/health" className="font-mono text-primary underline-offset-2 hover:underline">
          /api/health
        </a>
        .
      </p>
    </main>
  );
}

const BADGES = {
  up: { tone: "success", label: "Up" },
  connecting: { tone: "warning", label: "Connecting" },
  down: { tone: "danger", label: "Down" },
} as const;

const VERDICTS = {
  ok: { Icon: CircleCheck, title: "All systems operational", tone: { border: "border-l-success", text: "text-success" } },
  degraded: { Icon: TriangleAlert, title: "Degraded: a dependency is down", tone: { border: "border-l-warning", text: "text-warning" } },
  down: { Icon: CircleX, title: "Service unreachable", tone: { border: "border-l-danger", text: "text-danger" } },
} as const;
