import { TriangleAlert } from "lucide-react";
import { useId, useMemo, useState } from "react";
import { ApiError } from "~/api";
import { useProfileStore } from "~/profile";
import { Card, CardContent } from "~/ui/Card";
import { Switch } from "~/ui/Switch";
import { toast } from "~/ui/toast";
import { ConnectionStateIndicator } from "../ConnectionStateIndicator";
import { usePlatformLiveState } from "../live/usePlatformLiveState";
import { platformApi, type PlatformDetail } from "../platformApi";
import { ServerClock } from "../ServerClock";
import { useStorePlatformDetail } from "./usePlatformDetail";

/**
 * The platform right now: enabled or not (a switch for those who may change it), its
 * connection state and server clock pushed by the live stream, and the last error in words.
 * `receivedAt` is when the detail answer arrived (this browser's clock, ms).
 */
export function LiveStatusCard({ platform, receivedAt, canWrite }: { platform: PlatformDetail; receivedAt: number; canWrite: boolean }) {
  const { display, live } = usePlatformLiveState(platform);
  const lastError = live ? live.lastError : platform.lastError;
  // Until the stream speaks, the time the detail answer carried (counted from when it arrived).
  const fromDetail = useMemo(
    () => (platform.serverTime ? { state: platform.state, lastError: platform.lastError, serverTime: platform.serverTime, receivedAt } : undefined),
    [platform.serverTime, platform.state, platform.lastError, receivedAt],
  );
  // A disabled platform has no clock to show: the last one reported would keep ticking on its own.
  const serverTimeSource = display === "disabled" ? undefined : (live ?? fromDetail);
  const storeDetail = useStorePlatformDetail();
  const [pending, setPending] = useState<boolean | null>(null);
  const switchId = useId();

  async function setEnabled(enable: boolean) {
    setPending(enable);
    // Shown at once in the sidebar; put back if the API refuses.
    useProfileStore.getState().setTradePlatformEnable(platform.id, enable);
    try {
      storeDetail(await platformApi.update(platform.id, { enable }, { silent: false }));
      toast({
        title: enable ? "Platform enabled" : "Platform disabled",
        description: enable ? `Connecting to ${platform.name}…` : `${platform.name} is disconnected.`,
        color: "success",
      });
    } catch (error) {
      useProfileStore.getState().setTradePlatformEnable(platform.id, !enable);
      if (!(error instanceof ApiError)) throw error;
    } finally {
      setPending(null);
    }
  }

  return (
    <Card>
      <CardContent className="grid gap-5 sm:grid-cols-[auto_1fr_auto] sm:items-start">
        <div className="grid gap-1">
          <p className="text-xs font-medium text-muted">Connection</p>
          <ConnectionStateIndicator state={display} showLabel className="text-sm font-medium text-fg" />
        </div>
        <div className="grid gap-1 sm:border-l sm:border-border sm:pl-5">
          <p className="text-xs font-medium text-muted">Server time</p>
          <ServerClock live={serverTimeSource} timeZone={platform.timeZone} emptyText={display === "disabled" ? "Not connected" : undefined} />
        </div>
        <label htmlFor={switchId} className="flex items-center gap-3 sm:justify-self-end">
          <span className="grid text-right">
            <span className="text-sm font-medium">Enabled</span>
            <span className="text-xs text-muted">{platform.enable ? "Toolbox keeps it connected" : "Not connected"}</span>
          </span>
          <Switch
            id={switchId}
            checked={pending ?? platform.enable}
            onCheckedChange={setEnabled}
            disabled={!canWrite || pending !== null}
            aria-label={`Enable ${platform.name}`}
          />
        </label>
        {lastError && display !== "connected" ? (
          <div role="status" className="flex gap-2 rounded-md border border-warning/40 bg-warning/10 p-3 text-sm sm:col-span-3">
            <TriangleAlert aria-hidden className="mt-0.5 size-4 shrink-0 text-warning" />
            <p>
              <span className="font-medium">Last error: </span>
              {lastError}
            </p>
          </div>
        ) : null}
      </CardContent>
    </Card>
  );
}
