import { useState, type FormEvent } from "react";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { ApiError } from "~/api";
import { relogin } from "~/auth";
import { useCurrentOrganizationId } from "~/profile";
import { Button } from "~/ui/Button";
import { Field } from "~/ui/Field";
import { FormAlert } from "~/ui/FormAlert";
import { Input } from "~/ui/Input";
import { Section } from "~/ui/Section";
import { Switch } from "~/ui/Switch";
import { toast } from "~/ui/toast";
import { inputOf, securityPolicyApi, securityPolicyKey, type SecurityPolicyView } from "./securityPolicyApi";

const HOUR = 3600;

function messageOf(error: unknown): string {
  return error instanceof ApiError && error.status ? error.message : "Toolbox's service did not answer. Try again in a moment.";
}

/** "Organization sign-in policy": require two-factor, and the session lifetime. */
export function SignInPolicySection({ policy, canWrite }: { policy: SecurityPolicyView; canWrite: boolean }) {
  const organizationId = useCurrentOrganizationId();
  const queryClient = useQueryClient();
  const [requireTwoFactor, setRequireTwoFactor] = useState(policy.requireTwoFactor);
  const [limited, setLimited] = useState(policy.sessionLifetimeSeconds !== null);
  const [hours, setHours] = useState(policy.sessionLifetimeSeconds === null ? "12" : String(policy.sessionLifetimeSeconds / HOUR));
  const [error, setError] = useState<string | null>(null);
  const { minSessionLifetimeSeconds: min, maxSessionLifetimeSeconds: max } = policy.bounds;

  const save = useMutation({
    mutationFn: () =>
      securityPolicyApi.save({
        ...inputOf(policy),
        requireTwoFactor,
        sessionLifetimeSeconds: limited ? Math.round(Number(hours) * HOUR) : null,
      }),
    onSuccess: (saved) => {
      queryClient.setQueryData(securityPolicyKey(organizationId), saved);
      toast({ title: "Sign-in policy saved", description: "It applies to every member's next request.", color: "success", icon: "success" });
    },
    onError: (e) => setError(messageOf(e)),
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setError(null);
    save.mutate();
  };

  return (
    <Section title="Organization sign-in policy" description="How members must sign in to work in this organization.">
      <form onSubmit={submit} className="grid max-w-xl gap-5" aria-label="Organization sign-in policy">
        {policy.requireTwoFactor && !policy.signedInWithSecondFactor ? (
          <div role="status" className="grid gap-2 rounded-md border border-warning/40 bg-warning/5 p-3 text-sm">
            <p>
              This organization requires two-factor sign-in, and you signed in without a code. Set up an authenticator app in the two-factor section of this
              page, then sign in again.
            </p>
            <div>
              <Button type="button" variant="secondary" size="sm" onClick={() => void relogin({ fresh: true })}>
                Sign in again
              </Button>
            </div>
          </div>
        ) : null}
        <div className="flex items-start justify-between gap-4">
          <div>
            <label htmlFor="require-two-factor" className="text-sm font-medium">
              Require two-factor sign-in
            </label>
            <p id="require-two-factor-description" className="text-sm text-muted">
              Members who signed in without a second factor are refused until they set one up and sign in again.
            </p>
          </div>
          <Switch
            id="require-two-factor"
            aria-describedby="require-two-factor-description"
            checked={requireTwoFactor}
            onCheckedChange={setRequireTwoFactor}
            disabled={!canWrite}
          />
        </div>
        <div className="flex items-start justify-between gap-4">
          <div>
            <label htmlFor="limit-session" className="text-sm font-medium">
              Limit the session lifetime
            </label>
            <p id="limit-session-description" className="text-sm text-muted">
              Off: a sign-in lasts as long as the identity provider allows ({max / (24 * HOUR)} days).
            </p>
          </div>
          <Switch id="limit-session" aria-describedby="limit-session-description" checked={limited} onCheckedChange={setLimited} disabled={!canWrite} />
        </div>
        {limited ? (
          <Field
            label="Session lifetime (hours)"
            description={`Members sign in again this long after their last sign-in: ${min / HOUR} to ${max / HOUR} hours.`}
          >
            <Input
              type="number"
              inputMode="numeric"
              min={min / HOUR}
              max={max / HOUR}
              step={1}
              required
              value={hours}
              onChange={(e) => setHours(e.target.value)}
              disabled={!canWrite}
              className="max-w-40"
            />
          </Field>
        ) : null}
        <FormAlert message={error} />
        {canWrite ? (
          <div>
            <Button type="submit" loading={save.isPending}>
              Save sign-in policy
            </Button>
          </div>
        ) : null}
      </form>
    </Section>
  );
}
