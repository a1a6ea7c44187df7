import { useQuery, useQueryClient } from "@tanstack/react-query";
import { ArrowUpRight, Layers } from "lucide-react";
import { useState } from "react";
import { Link } from "react-router";
import { ApiError } from "~/api";
import { useAccess, useCurrentOrganizationId } from "~/profile";
import { Button } from "~/ui/Button";
import { Card } from "~/ui/Card";
import { EmptyState } from "~/ui/EmptyState";
import { Skeleton } from "~/ui/Skeleton";
import { Switch } from "~/ui/Switch";
import { toast } from "~/ui/toast";
import { platformApi, type PlatformApp } from "../platformApi";
import { APPS, withAllApps } from "./appCatalog";

export const appsQueryKey = (organizationId: string | null, platformId: string) => ["tradePlatformApps", organizationId, platformId] as const;

/** `…/settings/apps`: which applications run on this platform, switched on and off here, opened from here. */
export function PlatformApps({ platformId }: { platformId: string }) {
  const organizationId = useCurrentOrganizationId();
  const queryClient = useQueryClient();
  const { hasModule } = useAccess();
  const canWrite = hasModule("tradePlatforms", "write");
  const key = appsQueryKey(organizationId, platformId);
  const apps = useQuery({ queryKey: key, queryFn: ({ signal }) => platformApi.apps(platformId, signal) });
  const [pending, setPending] = useState<PlatformApp | null>(null);

  if (apps.isPending) return <Skeleton className="h-40" />;
  if (apps.isError)
    return <EmptyState icon={Layers} title="The applications could not be loaded" description="Toolbox's service did not answer. Try again in a moment." />;

  const current = withAllApps(apps.data);

  async function toggle(app: PlatformApp, enabled: boolean) {
    setPending(app);
    try {
      const next = current.map((a) => (a.app === app ? { ...a, enabled } : a));
      queryClient.setQueryData(key, await platformApi.setApps(platformId, next));
      toast({ title: `${APPS.find((a) => a.app === app)?.name} ${enabled ? "enabled" : "disabled"}`, color: "success" });
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
    } finally {
      setPending(null);
    }
  }

  return (
    <div className="grid gap-4">
      <Card className="overflow-hidden">
        <ul className="divide-y divide-border">
          {APPS.map(({ app, name, description, path, icon: Icon, module }) => {
            const enabled = current.find((a) => a.app === app)?.enabled ?? false;
            const switchId = `app-${app}`;
            return (
              <li key={app} className="flex flex-wrap items-center gap-4 px-5 py-4 sm:flex-nowrap">
                <span className="grid size-10 shrink-0 place-items-center rounded-md bg-primary/10 text-primary">
                  <Icon aria-hidden className="size-5" />
                </span>
                <div className="min-w-0 flex-1">
                  <label htmlFor={switchId} className="font-medium">
                    {name}
                  </label>
                  <p className="text-sm text-muted">{description}</p>
                </div>
                {hasModule(module, "read") ? (
                  <Button asChild variant="ghost" size="sm">
                    <Link to={path}>
                      Open
                      <ArrowUpRight aria-hidden />
                      <span className="sr-only">{name}</span>
                    </Link>
                  </Button>
                ) : null}
                <div className="flex items-center gap-2">
                  <span className="w-16 text-right text-xs text-muted" aria-hidden>
                    {enabled ? "Enabled" : "Off"}
                  </span>
                  <Switch id={switchId} checked={enabled} disabled={!canWrite || pending !== null} onCheckedChange={(on) => toggle(app, on)} />
                </div>
              </li>
            );
          })}
        </ul>
      </Card>
      {canWrite ? (
        <p className="text-sm text-muted">
          Setting up several platforms at once?{" "}
          <Link to="/tradePlatforms/AssignApplicationModal" className="font-medium text-primary underline-offset-4 hover:underline">
            Assign an application to several platforms
          </Link>
          .
        </p>
      ) : null}
    </div>
  );
}
