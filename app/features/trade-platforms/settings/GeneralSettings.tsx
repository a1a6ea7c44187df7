import { ServerOff } from "lucide-react";
import { ApiError } from "~/api";
import { useAccess } from "~/profile";
import { EmptyState } from "~/ui/EmptyState";
import { Skeleton } from "~/ui/Skeleton";
import { DangerZone } from "./DangerZone";
import { LiveStatusCard } from "./LiveStatusCard";
import { PlatformDetailsForm } from "./PlatformDetailsForm";
import { TradeHistoryCard } from "./TradeHistoryCard";
import { usePlatformDetail } from "./usePlatformDetail";

/** `…/settings`: live state and enable switch, details and connection, danger zone. */
export function GeneralSettings({ platformId }: { platformId: string }) {
  const { hasModule } = useAccess();
  const canWrite = hasModule("tradePlatforms", "write");
  const detail = usePlatformDetail(platformId);
  if (detail.isPending) {
    return (
      <div className="grid gap-4" role="status" aria-label="Loading the platform">
        <Skeleton className="h-24" />
        <Skeleton className="h-80" />
      </div>
    );
  }
  if (detail.isError || !detail.data) {
    const notFound = detail.error instanceof ApiError && detail.error.status === 404;
    return (
      <EmptyState
        icon={ServerOff}
        title={notFound ? "This trade platform no longer exists" : "The platform's settings could not be loaded"}
        description={notFound ? "It may have been deleted by someone else." : "Toolbox's service did not answer. It retries when you come back to this page."}
      />
    );
  }
  const platform = detail.data;
  return (
    <div className="grid gap-6">
      <LiveStatusCard platform={platform} receivedAt={detail.dataUpdatedAt} canWrite={canWrite} />
      <TradeHistoryCard platformId={platform.id} />
      {/* Keyed by what it edits: a saved change starts the form from the new values; toggling enable does not reset it. */}
      <PlatformDetailsForm key={JSON.stringify([platform.name, platform.timeZone, platform.connection])} platform={platform} canWrite={canWrite} />
      {canWrite ? <DangerZone platform={platform} /> : null}
    </div>
  );
}
