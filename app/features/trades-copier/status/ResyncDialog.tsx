import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { api, ApiError } from "~/api";
import { useCurrentOrganizationId } from "~/profile";
import { Button } from "~/ui/Button";
import { DialogContent, DialogRoot } from "~/ui/Dialog";
import { FormAlert } from "~/ui/FormAlert";
import { Spinner } from "~/ui/Spinner";
import { toast } from "~/ui/toast";
import { divergenceKey, resyncPath, statusKey, type ResyncAction, type ResyncPlan } from "./statusApi";

export interface ResyncTarget {
  linkId: string;
  linkName: string;
  platformId: string;
  login: string;
  /** "Platform · login", for the title. */
  followerText: string;
}

const describe = (a: ResyncAction) =>
  a.kind === "open"
    ? `Open ${a.side} ${a.volume} ${a.symbol} (copy of source ${a.sourceId})`
    : a.kind === "reduce"
      ? `Close ${a.volume} of ${a.side} ${a.symbol} (follower position ${a.followerPositionId ?? ""}), to its share of source ${a.sourceId}`
      : `Close ${a.side} ${a.volume} ${a.symbol}${a.followerPositionId ? ` (follower position ${a.followerPositionId})` : ""}, left from source ${a.sourceId}`;

/**
 * "Resync" for one follower: reads the plan from the engine's route (GET …/resync) and shows
 * exactly what will be done; only "Resync" (POST the same path) does it.
 */
export function ResyncDialog({ target, onClose }: { target: ResyncTarget | null; onClose: () => void }) {
  const organizationId = useCurrentOrganizationId();
  const queryClient = useQueryClient();
  const path = target ? resyncPath(target.linkId, target.platformId, target.login) : "";
  const plan = useQuery({
    queryKey: ["tradesCopier", organizationId, "resyncPlan", path],
    queryFn: ({ signal }) => api.get<ResyncPlan>(path, { signal, silent: true }),
    enabled: target !== null,
    gcTime: 0,
    retry: false,
  });
  const run = useMutation({
    mutationFn: () => api.post<unknown>(path),
    onSuccess: () => {
      toast({ title: "Resync sent", description: `${target?.followerText}: ${plan.data?.actions.length ?? 0} actions`, color: "success" });
      void queryClient.invalidateQueries({ queryKey: divergenceKey(organizationId) });
      void queryClient.invalidateQueries({ queryKey: statusKey(organizationId) });
      onClose();
    },
  });
  const actions = plan.data?.actions ?? [];
  return (
    <DialogRoot open={target !== null} onOpenChange={(open) => !open && onClose()}>
      {target ? (
        <DialogContent
          title={`Resync ${target.followerText}?`}
          description={`Brings this follower of ${target.linkName} back in line with the source: opens what is missing and closes what is extra. Nothing is done until you confirm.`}
          footer={
            <>
              <Button variant="secondary" onClick={onClose}>
                Cancel
              </Button>
              <Button loading={run.isPending} disabled={!plan.data || actions.length === 0} onClick={() => run.mutate()}>
                Resync
              </Button>
            </>
          }
        >
          {plan.isPending ? (
            <p role="status" className="flex items-center gap-2 text-sm text-muted">
              <Spinner size="sm" label={null} /> Reading what resync would do…
            </p>
          ) : plan.isError ? (
            <FormAlert
              message={`The resync plan could not be read${plan.error instanceof ApiError ? ` (${plan.error.status})` : ""}: ${plan.error.message || "the copier did not answer"}.`}
            />
          ) : actions.length === 0 ? (
            <p className="text-sm text-muted">Nothing to do: the follower holds every copy the source calls for.</p>
          ) : (
            <div className="grid gap-2">
              <p className="text-sm">
                Resync will send these {actions.length} {actions.length === 1 ? "order" : "orders"} to the follower:
              </p>
              <ol className="grid list-decimal gap-1 pl-5 text-sm" aria-label="What resync will do">
                {actions.map((a) => (
                  <li key={`${a.kind}:${a.sourceId}:${a.followerPositionId ?? ""}`}>{describe(a)}</li>
                ))}
              </ol>
            </div>
          )}
        </DialogContent>
      ) : null}
    </DialogRoot>
  );
}
