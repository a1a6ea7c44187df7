import type { ReactNode } from "react";
import { useQuery } from "@tanstack/react-query";
import { ClipboardCopy, RefreshCw } from "lucide-react";
import { useAuthStore } from "~/auth";
import { fetchHealth, healthQueryKey } from "~/features/health";
import { useProfileStore } from "~/profile";
import { Badge } from "~/ui/Badge";
import { Button } from "~/ui/Button";
import { Card, CardContent, CardHeader, CardTitle } from "~/ui/Card";
import { useColorMode } from "~/ui/colorMode";
import { DescriptionList } from "~/ui/DescriptionList";
import { Page } from "~/ui/Page";
import { toast } from "~/ui/toast";
import { usePublicConfig } from "~/features/shell";
import { ClaimsTable } from "./ClaimsTable";
import { collectDiagnostics, formatCountdown } from "./diagnostics";
import { useNow } from "./useNow";

/** /debug: what support asks for, on one page, and one button to copy it (never a token). */
export function DebugPage() {
  const config = usePublicConfig();
  const user = useAuthStore((s) => s.user);
  const profile = useProfileStore();
  const colorMode = useColorMode();
  const now = useNow();
  const ping = useQuery({ queryKey: healthQueryKey(), queryFn: () => fetchHealth(), refetchInterval: 15_000, staleTime: 0 });
  const d = collectDiagnostics({ config, user, profile, ping: ping.data, now });
  const expiring = (d.session.expiresInSeconds ?? Infinity) < 60;

  async function copy() {
    try {
      await navigator.clipboard.writeText(JSON.stringify(d, null, 2));
      toast({ title: "Diagnostics copied", description: "Paste them into your message to support.", color: "success" });
    } catch {
      toast({ title: "Error", description: "The browser did not allow copying to the clipboard.", color: "error", icon: "warning" });
    }
  }

  return (
    <Page
      title="Diagnostics"
      description="Build, session, organization and API facts for support. Tokens are never shown."
      actions={
        <Button onClick={copy}>
          <ClipboardCopy aria-hidden />
          Copy diagnostics
        </Button>
      }
    >
      <div className="grid gap-4 lg:grid-cols-2">
        <InfoCard title="Build">
          <DescriptionList
            items={[
              { term: "Build id", value: <code className="font-mono">{d.build.id}</code> },
              { term: "Version", value: d.build.version },
              { term: "Colour mode", value: `${colorMode.mode} (${colorMode.resolved})` },
            ]}
          />
        </InfoCard>
        <InfoCard title="Session">
          <DescriptionList
            items={[
              { term: "Name", value: d.session.name ?? "—" },
              { term: "Email", value: d.session.email ?? "—" },
              { term: "Subject", value: <code className="font-mono text-xs">{d.session.sub ?? "—"}</code> },
              {
                term: "Scopes",
                value: (
                  <span className="flex flex-wrap gap-1">
                    {d.session.scopes.map((s) => (
                      <Badge key={s}>{s}</Badge>
                    ))}
                  </span>
                ),
              },
              {
                term: "Access token",
                value: (
                  <span className="inline-flex flex-wrap items-center gap-2">
                    {d.session.accessToken}
                    <Badge tone={expiring ? "warning" : "neutral"} aria-live="off">
                      {d.session.expiresInSeconds !== undefined && d.session.expiresInSeconds < 0 ? "" : "expires in "}
                      {formatCountdown(d.session.expiresInSeconds)}
                    </Badge>
                  </span>
                ),
              },
              { term: "Refresh token", value: d.session.refreshToken },
            ]}
          />
        </InfoCard>
        <InfoCard title="Organization">
          <DescriptionList
            items={[
              { term: "Current", value: d.organization?.name ?? "none" },
              { term: "Id", value: <code className="font-mono text-xs">{d.organization?.id ?? "—"}</code> },
              { term: "Role", value: d.organization?.isAdmin ? "Administrator" : "Member" },
              { term: "Organizations", value: d.organizationCount },
              { term: "Trade platforms", value: d.tradePlatformCount },
            ]}
          />
        </InfoCard>
        <InfoCard title="Preflight and API">
          <DescriptionList
            items={[
              { term: "Preflight", value: <Badge tone={d.preflight.done ? "success" : "warning"}>{d.preflight.done ? "Done" : "Pending"}</Badge> },
              { term: "Server time", value: d.preflight.answer?.serverTime ?? "—" },
              { term: "Last error", value: d.preflight.lastError ?? "none" },
              {
                term: "API latency",
                value: (
                  <span className="inline-flex items-center gap-2">
                    {ping.data ? `${ping.data.latencyMs} ms (HTTP ${ping.data.httpStatus || "no answer"})` : "measuring…"}
                    <Button variant="ghost" size="sm" onClick={() => void ping.refetch()} loading={ping.isFetching} aria-label="Measure API latency again">
                      {ping.isFetching ? null : <RefreshCw aria-hidden />}
                    </Button>
                  </span>
                ),
              },
            ]}
          />
        </InfoCard>
      </div>
      <InfoCard title={`Claims (${d.claims.length})`} className="mt-4">
        <ClaimsTable claims={d.claims} />
      </InfoCard>
    </Page>
  );
}

function InfoCard({ title, className, children }: { title: string; className?: string; children: ReactNode }) {
  return (
    <Card className={className}>
      <CardHeader>
        <CardTitle className="text-sm">{title}</CardTitle>
      </CardHeader>
      <CardContent>{children}</CardContent>
    </Card>
  );
}
