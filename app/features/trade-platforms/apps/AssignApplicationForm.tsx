import { useQueries, useQueryClient } from "@tanstack/react-query";
import { useId, useState, type FormEvent, type ReactNode } from "react";
import { ApiError } from "~/api";
import { useCurrentOrganizationId, useTradePlatforms } from "~/profile";
import { cn } from "~/ui/cn";
import { toast } from "~/ui/toast";
import { ChoiceCards } from "~/ui/ChoiceCards";
import { FormAlert } from "~/ui/FormAlert";
import { platformApi, type PlatformApp } from "../platformApi";
import { PlatformTypeBadge } from "../PlatformTypeBadge";
import { APPS, appName } from "./appCatalog";
import { appsQueryKey } from "./PlatformApps";

/**
 * Pick an application and the platforms it should run on. Platforms that already run it are
 * shown ticked and cannot be unticked here (switch it off in the platform's settings).
 */
export function AssignApplicationForm({
  initialApp,
  onDone,
  footer,
}: {
  initialApp: PlatformApp;
  onDone: () => void;
  footer: (submit: { formId: string; pending: boolean; count: number }) => ReactNode;
}) {
  const [app, setApp] = useState<PlatformApp>(initialApp);
  const [chosen, setChosen] = useState<Set<string>>(new Set());
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const formId = useId();
  const platforms = useTradePlatforms();
  const organizationId = useCurrentOrganizationId();
  const queryClient = useQueryClient();
  const assigned = useQueries({
    queries: platforms.map((p) => ({
      queryKey: appsQueryKey(organizationId, p.id),
      queryFn: ({ signal }: { signal: AbortSignal }) => platformApi.apps(p.id, signal),
    })),
  });
  const alreadyOn = (index: number) => assigned[index]?.data?.some((a) => a.app === app && a.enabled) ?? false;
  const selected = platforms.filter((p, i) => chosen.has(p.id) && !alreadyOn(i)).map((p) => p.id);

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (!selected.length) {
      setError("Tick at least one platform.");
      return;
    }
    setPending(true);
    setError(null);
    try {
      await platformApi.assignApplication(app, selected);
      await Promise.all(selected.map((id) => queryClient.invalidateQueries({ queryKey: appsQueryKey(organizationId, id) })));
      toast({
        title: `${appName(app)} assigned`,
        description: `Now on ${selected.length} more platform${selected.length === 1 ? "" : "s"}.`,
        color: "success",
      });
      onDone();
    } catch (e) {
      if (e instanceof ApiError && e.status === 401) return;
      setError(e instanceof ApiError && e.status ? e.message : "Toolbox's service did not answer. Nothing was assigned; try again.");
    } finally {
      setPending(false);
    }
  }

  return (
    <>
      <form id={formId} onSubmit={submit} noValidate className="grid gap-5">
        <ChoiceCards
          legend="Application"
          name="app"
          value={app}
          onChange={(next) => {
            setApp(next);
            setError(null);
          }}
          className="sm:grid-cols-2"
          choices={APPS.map((a) => ({ value: a.app, label: a.name, description: a.description, icon: <a.icon aria-hidden className="size-4 text-primary" /> }))}
        />
        <fieldset className="grid gap-1.5">
          <legend className="mb-1.5 text-sm font-medium">Platforms</legend>
          {platforms.length === 0 ? <p className="text-sm text-muted">This organization has no trade platform yet.</p> : null}
          <ul className="grid max-h-64 gap-1 overflow-y-auto rounded-md border border-border p-1">
            {platforms.map((p, index) => {
              const on = alreadyOn(index);
              return (
                <li key={p.id}>
                  <label
                    className={cn(
                      "flex h-10 cursor-pointer items-center gap-3 rounded-sm px-2 text-sm hover:bg-subtle has-[:focus-visible]:ring-2 has-[:focus-visible]:ring-ring",
                      on && "cursor-default opacity-70",
                    )}
                  >
                    <input
                      type="checkbox"
                      className="size-4 accent-primary"
                      checked={on || chosen.has(p.id)}
                      disabled={on}
                      onChange={(e) => {
                        setError(null);
                        setChosen((s) => {
                          const next = new Set(s);
                          if (e.target.checked) next.add(p.id);
                          else next.delete(p.id);
                          return next;
                        });
                      }}
                    />
                    <PlatformTypeBadge type={p.type} />
                    <span className="min-w-0 flex-1 truncate">{p.name}</span>
                    {on ? <span className="text-xs text-muted">Already runs it</span> : null}
                  </label>
                </li>
              );
            })}
          </ul>
        </fieldset>
        <FormAlert message={error} />
      </form>
      {footer({ formId, pending, count: selected.length })}
    </>
  );
}
