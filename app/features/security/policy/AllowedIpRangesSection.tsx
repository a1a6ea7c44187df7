import { useMemo, useState, type FormEvent } from "react";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { addressAllowed, ALLOWED_IP_RANGES_MAX, parseIpRange } from "@core/securityPolicy";
import { ApiError } from "~/api";
import { useCurrentOrganizationId } from "~/profile";
import { Button } from "~/ui/Button";
import { DialogClose, DialogContent, DialogRoot } from "~/ui/Dialog";
import { FormAlert } from "~/ui/FormAlert";
import { Section } from "~/ui/Section";
import { cn, focusRing } from "~/ui/cn";
import { toast } from "~/ui/toast";
import { inputOf, securityPolicyApi, securityPolicyKey, type SecurityPolicyView } from "./securityPolicyApi";

function messageOf(error: unknown): string {
  return error instanceof ApiError && error.status ? error.message : "Toolbox's service did not answer. Try again in a moment.";
}

/** Each non-empty line, parsed as the API will (core/securityPolicy.ts). */
function check(text: string) {
  const lines = text.split("\n").map((l, i) => ({ line: i + 1, text: l.trim() }));
  const filled = lines.filter((l) => l.text !== "");
  const problems = filled.flatMap((l) => {
    const parsed = parseIpRange(l.text);
    return parsed.ok ? [] : [`Line ${l.line}: ${parsed.message}`];
  });
  if (filled.length > ALLOWED_IP_RANGES_MAX) problems.push(`At most ${ALLOWED_IP_RANGES_MAX} ranges.`);
  const ranges = filled.flatMap((l) => {
    const parsed = parseIpRange(l.text);
    return parsed.ok ? [parsed.range] : [];
  });
  return { ranges, problems };
}

/** "Allowed IP ranges": the addresses the API accepts this organization's calls from. */
export function AllowedIpRangesSection({ policy, canWrite }: { policy: SecurityPolicyView; canWrite: boolean }) {
  const organizationId = useCurrentOrganizationId();
  const queryClient = useQueryClient();
  const [text, setText] = useState(policy.allowedIpRanges.join("\n"));
  const [error, setError] = useState<string | null>(null);
  const [confirming, setConfirming] = useState(false);
  const { ranges, problems } = useMemo(() => check(text), [text]);
  const excludesYou = ranges.length > 0 && !addressAllowed(policy.yourAddress, ranges);

  const save = useMutation({
    mutationFn: (confirmExcludingOwnAddress: boolean) =>
      securityPolicyApi.save({ ...inputOf(policy), allowedIpRanges: ranges, ...(confirmExcludingOwnAddress ? { confirmExcludingOwnAddress } : {}) }),
    onSuccess: (saved) => {
      setConfirming(false);
      setText(saved.allowedIpRanges.join("\n"));
      queryClient.setQueryData(securityPolicyKey(organizationId), saved);
      toast({
        title: "Allowed IP ranges saved",
        description: saved.allowedIpRanges.length
          ? `${saved.allowedIpRanges.length} range(s): calls from elsewhere are refused.`
          : "Calls are accepted from any address.",
        color: "success",
        icon: "success",
      });
    },
    onError: (e) => {
      setConfirming(false);
      setError(messageOf(e));
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setError(null);
    if (problems.length) return;
    if (excludesYou) setConfirming(true);
    else save.mutate(false);
  };

  return (
    <Section
      title="Allowed IP ranges"
      description="Calls to this organization are accepted only from these addresses. Leave the list empty to accept any address."
    >
      <form onSubmit={submit} className="grid max-w-xl gap-3" aria-label="Allowed IP ranges">
        <p className="text-sm">
          Your address is <span className="font-mono">{policy.yourAddress}</span>
          {policy.allowedIpRanges.length ? (policy.yourAddressAllowed ? " (allowed)." : " (not in the saved ranges).") : "."}
        </p>
        <label htmlFor="allowed-ip-ranges" className="text-sm font-medium">
          Ranges, one per line
        </label>
        <textarea
          id="allowed-ip-ranges"
          aria-describedby="allowed-ip-ranges-help allowed-ip-ranges-problems"
          aria-invalid={problems.length ? true : undefined}
          value={text}
          onChange={(e) => setText(e.target.value)}
          readOnly={!canWrite}
          rows={6}
          spellCheck={false}
          placeholder={"203.0.113.0/24\n2001:db8::/32"}
          className={cn(
            "w-full rounded-md border border-input bg-surface px-3 py-2 font-mono text-sm text-fg shadow-xs",
            "placeholder:text-muted aria-[invalid=true]:border-danger",
            focusRing,
            "focus-visible:ring-offset-0",
          )}
        />
        <p id="allowed-ip-ranges-help" className="text-sm text-muted">
          CIDR ranges, IPv4 or IPv6 (203.0.113.0/24, 2001:db8::/32); a single address is taken as itself.
        </p>
        <ul id="allowed-ip-ranges-problems" aria-live="polite" className="grid gap-1 text-sm text-danger">
          {problems.map((p) => (
            <li key={p}>{p}</li>
          ))}
        </ul>
        {excludesYou && !problems.length ? (
          <p role="status" className="text-sm text-warning">
            These ranges do not include your address {policy.yourAddress}: once saved, you could no longer reach this organization from here.
          </p>
        ) : null}
        <FormAlert message={error} />
        {canWrite ? (
          <div>
            <Button type="submit" loading={save.isPending} disabled={problems.length > 0}>
              Save allowed IP ranges
            </Button>
          </div>
        ) : null}
      </form>
      <DialogRoot open={confirming} onOpenChange={setConfirming}>
        <DialogContent
          title="Lock yourself out from here?"
          description={`Your address ${policy.yourAddress} is not in these ranges. After saving, every call you make from here to this organization is refused, this page included, until an administrator at an allowed address changes the list.`}
          footer={
            <>
              <DialogClose asChild>
                <Button variant="secondary">Cancel</Button>
              </DialogClose>
              <Button variant="danger" loading={save.isPending} onClick={() => save.mutate(true)}>
                Save anyway
              </Button>
            </>
          }
        />
      </DialogRoot>
    </Section>
  );
}
