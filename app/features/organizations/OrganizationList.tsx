import { currentFormat } from "~/ui/format";
import { Building2, Check } from "lucide-react";
import { useCurrentOrganizationId, useProfileStore, useSwitchOrganization } from "~/profile";
import { Badge } from "~/ui/Badge";
import { Button } from "~/ui/Button";
import { Card } from "~/ui/Card";
import { EmptyState } from "~/ui/EmptyState";

/** The organizations the person belongs to: which one is current, which they administer, switch. */
export function OrganizationList() {
  const organizations = useProfileStore((s) => s.organizations);
  const currentId = useCurrentOrganizationId();
  const switchTo = useSwitchOrganization();
  if (!organizations.length) {
    return <EmptyState icon={Building2} title="No organization yet" description="Create one below to start working in Toolbox." />;
  }
  const sorted = [...organizations].sort((a, b) => a.name.localeCompare(b.name));
  return (
    <Card className="overflow-hidden">
      <ul className="divide-y divide-border" aria-label="Your organizations">
        {sorted.map((o) => {
          const current = o.id === currentId;
          return (
            <li key={o.id} className="flex flex-wrap items-center gap-3 px-4 py-3 sm:flex-nowrap" aria-current={current || undefined}>
              <span className="grid size-9 shrink-0 place-items-center rounded-md bg-primary/10 text-primary">
                <Building2 aria-hidden className="size-4" />
              </span>
              <div className="min-w-0 flex-1">
                <div className="flex flex-wrap items-center gap-2">
                  <span className="truncate font-medium">{o.name}</span>
                  {o.isAdmin ? <Badge tone="primary">Admin</Badge> : <Badge tone="outline">Member</Badge>}
                </div>
                <div className="text-xs text-muted">Created {formatDate(o.createdAt)}</div>
              </div>
              {current ? (
                <span className="inline-flex h-8 items-center gap-1.5 px-3 text-sm font-medium text-primary">
                  <Check aria-hidden className="size-4" />
                  Current
                </span>
              ) : (
                <Button variant="secondary" size="sm" onClick={() => switchTo(o.id)} aria-label={`Switch to ${o.name}`}>
                  Switch
                </Button>
              )}
            </li>
          );
        })}
      </ul>
    </Card>
  );
}

function formatDate(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? "—" : currentFormat().date(date);
}
