import { currentFormat } from "~/ui/format";
import { useId, useState, type FormEvent } from "react";
import { Copy, Download, ShieldCheck, ShieldOff } from "lucide-react";
import { ApiError } from "~/api";
import { Badge } from "~/ui/Badge";
import { Button } from "~/ui/Button";
import { Field } from "~/ui/Field";
import { FormAlert } from "~/ui/FormAlert";
import { Input } from "~/ui/Input";
import { saveFile } from "~/ui/saveFile";
import { Skeleton } from "~/ui/Skeleton";
import { toast } from "~/ui/toast";
import { useConfirmEnrolment, useDisableTwoFactor, useStartEnrolment, useTwoFactorStatus, type Enrolment } from "./twoFactorApi";

function messageOf(error: unknown): string {
  return error instanceof ApiError && error.status ? error.message : "Toolbox's service did not answer. Try again in a moment.";
}

/**
 * /settings/security, "Your two-factor sign-in": turn on TOTP (QR code or the secret as text,
 * confirmed by a code), see the recovery codes once (copy or download), turn it off with a code.
 */
export function TwoFactorSection() {
  const titleId = useId();
  const status = useTwoFactorStatus();
  const [enrolment, setEnrolment] = useState<Enrolment | null>(null);
  const [recoveryCodes, setRecoveryCodes] = useState<string[] | null>(null);

  let body;
  if (status.isPending) body = <Skeleton className="h-24 w-full" />;
  else if (!status.data) body = <FormAlert message={messageOf(status.error)} />;
  else if (!status.data.available)
    body = <p className="text-sm text-muted">You sign in through your organization's identity provider: set up two-factor sign-in there.</p>;
  else if (recoveryCodes) body = <RecoveryCodes codes={recoveryCodes} onDone={() => setRecoveryCodes(null)} />;
  else if (enrolment)
    body = (
      <EnrolmentForm
        enrolment={enrolment}
        onCancel={() => setEnrolment(null)}
        onConfirmed={(codes) => {
          setEnrolment(null);
          setRecoveryCodes(codes);
        }}
      />
    );
  else if (status.data.enabled) body = <EnabledView enabledAt={status.data.enabledAt} recoveryCodesLeft={status.data.recoveryCodesLeft} />;
  else body = <StartEnrolment onStarted={setEnrolment} />;

  return (
    <section aria-labelledby={titleId} className="grid gap-4">
      <header className="flex flex-wrap items-center gap-2">
        <h2 id={titleId} className="text-lg font-semibold tracking-tight">
          Your two-factor sign-in
        </h2>
        {status.data?.enabled ? <Badge tone="success">On</Badge> : status.data?.available ? <Badge tone="neutral">Off</Badge> : null}
      </header>
      <p className="max-w-prose text-sm text-muted">
        With two-factor sign-in, signing in to Toolbox asks for a code from an authenticator app on your phone after your password.
      </p>
      {body}
    </section>
  );
}

function StartEnrolment({ onStarted }: { onStarted: (enrolment: Enrolment) => void }) {
  const start = useStartEnrolment();
  const [error, setError] = useState<string | null>(null);
  return (
    <div className="grid justify-items-start gap-3">
      <FormAlert message={error} />
      <Button
        loading={start.isPending}
        onClick={() => {
          setError(null);
          start.mutate(undefined, { onSuccess: onStarted, onError: (e) => setError(messageOf(e)) });
        }}
      >
        <ShieldCheck aria-hidden />
        Set up two-factor sign-in
      </Button>
    </div>
  );
}

function EnrolmentForm({ enrolment, onCancel, onConfirmed }: { enrolment: Enrolment; onCancel: () => void; onConfirmed: (codes: string[]) => void }) {
  const confirm = useConfirmEnrolment();
  const [code, setCode] = useState("");
  const [error, setError] = useState<string | null>(null);
  const secretGroups = enrolment.secret.match(/.{1,4}/g)?.join(" ") ?? enrolment.secret;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setError(null);
    confirm.mutate(code.replace(/\s/g, ""), { onSuccess: (r) => onConfirmed(r.recoveryCodes), onError: (e) => setError(messageOf(e)) });
  };
  return (
    <form onSubmit={submit} className="grid gap-4 rounded-lg border border-border bg-surface p-4" aria-label="Set up two-factor sign-in">
      <ol className="grid list-decimal gap-1 pl-5 text-sm">
        <li>Scan this QR code with an authenticator app (Google Authenticator, Microsoft Authenticator, 1Password, Aegis …).</li>
        <li>Enter the 6-digit code the app shows for Toolbox.</li>
      </ol>
      <div className="flex flex-wrap items-start gap-4">
        {/* The QR code on white in both colour modes: scanners need the contrast. */}
        <img src={enrolment.qrCode} alt="QR code for your authenticator app" width={180} height={180} className="rounded-md bg-white p-1" />
        <div className="grid min-w-0 gap-1 text-sm">
          <p className="text-muted">Cannot scan? Type this key into the app instead:</p>
          <code className="rounded bg-subtle px-2 py-1 font-mono text-sm break-all select-all" aria-label="Secret key">
            {secretGroups}
          </code>
        </div>
      </div>
      <Field label="Code from the app" description="Six digits; a new one every 30 seconds.">
        <Input
          value={code}
          onChange={(e) => setCode(e.target.value)}
          inputMode="numeric"
          autoComplete="one-time-code"
          pattern="[0-9 ]{6,7}"
          maxLength={7}
          required
          className="max-w-40"
        />
      </Field>
      <FormAlert message={error} />
      <div className="flex gap-2">
        <Button type="submit" loading={confirm.isPending}>
          Turn on
        </Button>
        <Button type="button" variant="secondary" onClick={onCancel}>
          Cancel
        </Button>
      </div>
    </form>
  );
}

function RecoveryCodes({ codes, onDone }: { codes: string[]; onDone: () => void }) {
  const text = `Toolbox recovery codes (each works once)\n\n${codes.join("\n")}\n`;
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      toast({ title: "Copied", description: "The recovery codes are on the clipboard.", color: "success", icon: "success" });
    } catch {
      toast({ title: "Error", description: "The browser did not allow copying. Select the codes and copy them by hand.", color: "error", icon: "warning" });
    }
  };
  return (
    <div className="grid gap-3 rounded-lg border border-border bg-surface p-4" role="region" aria-label="Recovery codes">
      <p className="text-sm font-medium" role="status">
        Two-factor sign-in is on. Keep these recovery codes somewhere safe: each one signs you in once if you lose your phone. They are shown only now.
      </p>
      <ul className="grid grid-cols-2 gap-1 font-mono text-sm sm:grid-cols-3" aria-label="Your recovery codes">
        {codes.map((c) => (
          <li key={c}>{c}</li>
        ))}
      </ul>
      <div className="flex flex-wrap gap-2">
        <Button variant="secondary" onClick={() => void copy()}>
          <Copy aria-hidden />
          Copy
        </Button>
        <Button variant="secondary" onClick={() => saveFile(new Blob([text], { type: "text/plain" }), "toolbox-recovery-codes.txt")}>
          <Download aria-hidden />
          Download
        </Button>
        <Button onClick={onDone}>I have saved them</Button>
      </div>
    </div>
  );
}

function EnabledView({ enabledAt, recoveryCodesLeft }: { enabledAt: string | null; recoveryCodesLeft: number }) {
  const disable = useDisableTwoFactor();
  const [open, setOpen] = useState(false);
  const [code, setCode] = useState("");
  const [error, setError] = useState<string | null>(null);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setError(null);
    disable.mutate(code.trim(), {
      onSuccess: () => {
        setOpen(false);
        setCode("");
        toast({ title: "Two-factor sign-in off", description: "Your password alone signs you in now.", color: "success", icon: "success" });
      },
      onError: (e) => setError(messageOf(e)),
    });
  };
  return (
    <div className="grid gap-3">
      <p className="text-sm">
        On since {enabledAt ? currentFormat().dateTime(enabledAt) : "—"}.{" "}
        {recoveryCodesLeft === 1 ? "1 recovery code left." : `${recoveryCodesLeft} recovery codes left.`}
        {recoveryCodesLeft <= 3 ? " Turn two-factor off and on again for new recovery codes." : ""}
      </p>
      {open ? (
        <form onSubmit={submit} className="grid gap-3 rounded-lg border border-border bg-surface p-4" aria-label="Turn off two-factor sign-in">
          <Field label="Code from the app, or a recovery code">
            <Input value={code} onChange={(e) => setCode(e.target.value)} autoComplete="one-time-code" maxLength={64} required className="max-w-60" />
          </Field>
          <FormAlert message={error} />
          <div className="flex gap-2">
            <Button type="submit" variant="danger" loading={disable.isPending}>
              Turn off
            </Button>
            <Button type="button" variant="secondary" onClick={() => setOpen(false)}>
              Cancel
            </Button>
          </div>
        </form>
      ) : (
        <div>
          <Button variant="secondary" onClick={() => setOpen(true)}>
            <ShieldOff aria-hidden />
            Turn off two-factor sign-in
          </Button>
        </div>
      )}
    </div>
  );
}
