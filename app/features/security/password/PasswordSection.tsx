import { useId, useState, type FormEvent } from "react";
import { KeyRound } from "lucide-react";
import { useMutation } from "@tanstack/react-query";
import { api, ApiError } from "~/api";
import { relogin } from "~/auth";
import { Button } from "~/ui/Button";
import { Field } from "~/ui/Field";
import { FormAlert } from "~/ui/FormAlert";
import { Input } from "~/ui/Input";
import { toast } from "~/ui/toast";
import { useTwoFactorStatus } from "../twoFactor/twoFactorApi";

const MIN_LENGTH = 10;

function messageOf(error: unknown): string {
  return error instanceof ApiError && error.status ? error.message : "Toolbox's service did not answer. Try again in a moment.";
}

/**
 * /settings/security, "Your password": change it with the current one (docs/security.md "Password
 * change and reset"). Every session of the person ends with it, this one too: the app signs in again.
 */
export function PasswordSection() {
  const titleId = useId();
  // Whether the person has an account at the embedded provider (two-factor's status says it).
  const account = useTwoFactorStatus();
  const change = useMutation({
    mutationFn: (body: { currentPassword: string; newPassword: string }) => api.post("/api/profile/password", body, { silent: true }),
  });
  const [currentPassword, setCurrent] = useState("");
  const [newPassword, setNew] = useState("");
  const [confirmPassword, setConfirm] = useState("");
  const [error, setError] = useState<string | null>(null);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    setError(null);
    if (newPassword !== confirmPassword) return setError("The new passwords do not match.");
    change.mutate(
      { currentPassword, newPassword },
      {
        onSuccess: () => {
          toast({ title: "Password changed", description: "Every session has ended. Sign in with your new password.", color: "success", icon: "success" });
          void relogin({ fresh: true });
        },
        onError: (e) => setError(messageOf(e)),
      },
    );
  };

  if (account.data && !account.data.available) return null;
  return (
    <section aria-labelledby={titleId} className="grid gap-4">
      <h2 id={titleId} className="text-lg font-semibold tracking-tight">
        Your password
      </h2>
      <p className="max-w-prose text-sm text-muted">
        Changing it signs you out everywhere, here too. Forgot it? Sign out and choose “Forgot your password?” on the sign-in page.
      </p>
      <form onSubmit={submit} className="grid max-w-md gap-3" aria-label="Change your password">
        <Field label="Current password">
          <Input
            type="password"
            value={currentPassword}
            onChange={(e) => setCurrent(e.target.value)}
            autoComplete="current-password"
            required
            maxLength={256}
          />
        </Field>
        <Field label="New password" description={`At least ${MIN_LENGTH} characters; not a common password, nor your email address.`}>
          <Input
            type="password"
            value={newPassword}
            onChange={(e) => setNew(e.target.value)}
            autoComplete="new-password"
            required
            minLength={MIN_LENGTH}
            maxLength={256}
          />
        </Field>
        <Field label="Confirm new password">
          <Input type="password" value={confirmPassword} onChange={(e) => setConfirm(e.target.value)} autoComplete="new-password" required maxLength={256} />
        </Field>
        <FormAlert message={error} />
        <div>
          <Button type="submit" loading={change.isPending}>
            <KeyRound aria-hidden />
            Change password
          </Button>
        </div>
      </form>
    </section>
  );
}
