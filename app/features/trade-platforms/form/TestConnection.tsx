import { CircleAlert, CircleCheck, PlugZap } from "lucide-react";
import { useState } from "react";
import { Button } from "~/ui/Button";
import { cn } from "~/ui/cn";
import { formatServerTime } from "../ServerClock";
import { connectionErrors, formErrors } from "./platformForm";
import { testPlatformConnection, type TestOutcome } from "./testConnection";
import type { PlatformForm } from "./usePlatformForm";

/**
 * "Test connection": a real attempt with what is typed, before anything is saved. The answer is
 * a status region, so it is read out when it arrives; it is cleared when a connection field changes.
 */
export function TestConnection({
  form,
  secretStored = false,
  platformId,
  disabled,
}: {
  form: PlatformForm;
  secretStored?: boolean;
  platformId?: string;
  disabled?: boolean;
}) {
  const [pending, setPending] = useState(false);
  // An outcome belongs to the connection it tested: once a connection field changes it is gone.
  const [tested, setTested] = useState<{ version: number; outcome: TestOutcome } | null>(null);
  const outcome = tested?.version === form.connectionVersion ? tested.outcome : null;
  const setOutcome = (next: TestOutcome | null) => setTested(next ? { version: form.connectionVersion, outcome: next } : null);

  async function run() {
    const problems = connectionErrors(formErrors(form.values, { secretStored }));
    if (Object.keys(problems).length) {
      form.setErrors((e) => ({ ...e, ...problems }));
      setOutcome({ ok: false, title: "Fill in the connection first", message: "The fields marked in red need a value." });
      return;
    }
    setPending(true);
    setOutcome(null);
    try {
      setOutcome(await testPlatformConnection(form.values, secretStored ? platformId : undefined));
    } finally {
      setPending(false);
    }
  }

  return (
    <div className="grid gap-3">
      <div>
        <Button variant="secondary" onClick={run} loading={pending} disabled={disabled}>
          {pending ? null : <PlugZap aria-hidden />}
          {pending ? "Testing…" : "Test connection"}
        </Button>
      </div>
      <div role="status" aria-live="polite">
        {outcome ? <OutcomeBox outcome={outcome} timeZone={form.values.timeZone} /> : null}
      </div>
    </div>
  );
}

function OutcomeBox({ outcome, timeZone }: { outcome: TestOutcome; timeZone: string }) {
  const Icon = outcome.ok ? CircleCheck : CircleAlert;
  let title: string;
  let body: string;
  if (outcome.ok) {
    const time = new Date(outcome.serverTime);
    const shown = Number.isNaN(time.getTime()) ? null : formatServerTime(time, timeZone);
    title = "Connected";
    body = `${shown ? `Server time ${shown.time}, ${shown.date} (${shown.zone}). ` : ""}${outcome.accounts.toLocaleString("en")} trading accounts.`;
  } else {
    title = outcome.title;
    body = outcome.message;
  }
  return (
    <div className={cn("flex gap-3 rounded-md border p-3 text-sm", outcome.ok ? "border-success/30 bg-success/5" : "border-danger/30 bg-danger/5")}>
      <Icon aria-hidden className={cn("mt-0.5 size-4 shrink-0", outcome.ok ? "text-success" : "text-danger")} />
      <div>
        <p className="font-medium">{title}</p>
        <p className="text-muted">{body}</p>
      </div>
    </div>
  );
}
