import { useMutation } from "@tanstack/react-query";
import { Eye, Plus } from "lucide-react";
import { useMemo, useState, type FormEvent } from "react";
import { CopyLinkBodySchema, type CopyLink, type CopyLinkBody } from "@core/schemas/copier";
import type { CopyLinkPreview } from "@core/schemas/copierPreview";
import { api, ApiError } from "~/api";
import { Button } from "~/ui/Button";
import { DialogContent, DialogRoot } from "~/ui/Dialog";
import { Field } from "~/ui/Field";
import { FormAlert } from "~/ui/FormAlert";
import { Input } from "~/ui/Input";
import { Select, type SelectOption } from "~/ui/Select";
import { Switch } from "~/ui/Switch";
import { toast } from "~/ui/toast";
import { apiIssuesOf, errorsOf, linkDraftOf, linkInputOf, newFollower, newLink, type FieldErrors, type LinkDraft } from "./draft";
import { copiedPositionChanges } from "./copiedChanges";
import { FollowerFields } from "./FollowerFields";
import { LinkPreview } from "./LinkPreview";
import { LINKS_PATH } from "./linksApi";
import { LoginInput } from "./LoginInput";

interface Props {
  /** The link to edit, or null for a new one. */
  link: CopyLink | null;
  platforms: SelectOption[];
  canWrite: boolean;
  onClose: () => void;
  onSaved: () => void;
  onDelete: (link: CopyLink) => void;
  /** A follower was resumed (the links list reads again). */
  onResumed?: () => void;
}

/** New link or edit: name, source account, followers with every setting; errors shown on their fields. */
export function LinkDialog({ link, platforms, canWrite, onClose, onSaved, onDelete, onResumed }: Props) {
  const first = platforms[0]?.value ?? "";
  const [draft, setDraft] = useState<LinkDraft>(() => (link ? linkDraftOf(link) : newLink(first)));
  const [errors, setErrors] = useState<FieldErrors>({});
  const [failure, setFailure] = useState<string | null>(null);
  // Suspensions as the API last answered (a resume answers the link again).
  const [suspensions, setSuspensions] = useState(link?.suspensions ?? []);
  const resume = useMutation({
    mutationFn: (account: { platformId: string; login: string }) =>
      api.post<CopyLink>(`${LINKS_PATH}/${link!.id}/followers/${account.platformId}/${encodeURIComponent(account.login)}/resume`),
    onSuccess: (saved, account) => {
      setSuspensions(saved.suspensions);
      toast({ title: "Follower resumed", description: `Account ${account.login} copies new trades again.`, color: "success" });
      onResumed?.();
    },
  });
  const save = useMutation({
    mutationFn: (body: unknown) =>
      link
        ? api.put<CopyLink>(`${LINKS_PATH}/${link.id}`, body, { silent: true, headers: { "If-Match": `"${link.version}"` } })
        : api.post<CopyLink>(LINKS_PATH, body, { silent: true }),
    onSuccess: (saved) => {
      toast({ title: link ? "Link saved" : "Link created", description: `${saved.name}: ${saved.followers.length} follower(s).`, color: "success" });
      onSaved();
    },
    onError: (error) => {
      const issues = error instanceof ApiError ? apiIssuesOf(error.body) : [];
      setErrors(errorsOf(issues));
      setFailure(error instanceof Error ? error.message : "The link could not be saved.");
    },
  });

  const preview = useMutation({
    mutationFn: (body: CopyLinkBody) => api.post<CopyLinkPreview>("/api/tradesCopier/preview", body, { silent: true }),
    onError: (error) => setFailure(error instanceof Error ? error.message : "The preview could not be read."),
  });

  /** The draft as the contract has it, or its errors shown on their fields. */
  const validated = (): CopyLinkBody | null => {
    const parsed = CopyLinkBodySchema.safeParse(linkInputOf(draft));
    if (!parsed.success) {
      setErrors(errorsOf(parsed.error.issues.map((i) => ({ path: i.path.map((p) => (typeof p === "symbol" ? String(p) : p)), message: i.message }))));
      setFailure("Some fields need attention.");
      return null;
    }
    setErrors({});
    setFailure(null);
    return parsed.data;
  };

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const body = validated();
    if (body) save.mutate(body);
  };

  const nameOf = (platformId: string) => platforms.find((p) => p.value === platformId)?.label ?? "Platform";
  const original = useMemo(() => (link ? linkDraftOf(link) : null), [link]);
  const changes = original ? copiedPositionChanges(original, draft, nameOf) : [];

  const disabled = !canWrite || save.isPending;
  // A preview is of the draft it was asked for: an edit puts it away.
  const set = <K extends keyof LinkDraft>(field: K, value: LinkDraft[K]) => {
    setDraft((d) => ({ ...d, [field]: value }));
    if (preview.data) preview.reset();
  };
  const title = link ? `Edit ${link.name}` : "New link";

  return (
    <DialogRoot open onOpenChange={(open) => !open && onClose()}>
      <DialogContent
        title={title}
        description="A source account's trades are copied to each follower with its own settings."
        className="max-w-4xl"
        footer={
          <>
            {link && canWrite ? (
              <Button variant="danger" className="sm:mr-auto" onClick={() => onDelete(link)} disabled={save.isPending}>
                Delete link
              </Button>
            ) : null}
            <Button variant="secondary" onClick={onClose}>
              {canWrite ? "Cancel" : "Close"}
            </Button>
            {canWrite ? (
              <Button type="submit" form="copy-link-form" loading={save.isPending}>
                {link ? "Save link" : "Create link"}
              </Button>
            ) : null}
          </>
        }
      >
        <form id="copy-link-form" onSubmit={submit} noValidate className="grid gap-4" aria-label={title}>
          <div className="grid gap-3 sm:grid-cols-2">
            <Field label="Name" error={errors.name}>
              <Input value={draft.name} disabled={disabled} onChange={(e) => set("name", e.target.value)} placeholder="Signals to retail" />
            </Field>
            <Field label="Link enabled" error={errors.enabled}>
              <Switch checked={draft.enabled} disabled={disabled} onCheckedChange={(v) => set("enabled", v)} />
            </Field>
          </div>
          <fieldset className="grid gap-3 rounded-md border border-border p-3 sm:grid-cols-2">
            <legend className="px-1 text-sm font-medium">Source account</legend>
            <Field label="Source platform" error={errors.sourcePlatformId} description="Platforms with the Trades Copier assigned">
              <Select value={draft.sourcePlatformId} disabled={disabled} options={platforms} onValueChange={(v) => set("sourcePlatformId", v)} />
            </Field>
            <Field label="Source login" error={errors.sourceLogin}>
              <LoginInput
                platformId={draft.sourcePlatformId}
                value={draft.sourceLogin}
                disabled={disabled}
                onChange={(login) => set("sourceLogin", login)}
                placeholder="100001"
              />
            </Field>
          </fieldset>
          <div className="grid gap-3">
            <h3 className="text-base font-semibold">Followers</h3>
            {errors.followers ? <p className="text-xs font-medium text-danger">{errors.followers}</p> : null}
            {draft.followers.map((f, i) => {
              const suspension = suspensions.find((s) => s.account.platformId === f.platformId && s.account.login === f.login);
              return (
                <FollowerFields
                  suspension={suspension}
                  onResume={canWrite && suspension ? () => resume.mutate(suspension.account) : undefined}
                  resuming={resume.isPending}
                  key={i}
                  index={i}
                  draft={f}
                  platforms={platforms}
                  errors={errors}
                  disabled={disabled}
                  onChange={(next) =>
                    set(
                      "followers",
                      draft.followers.map((x, j) => (j === i ? next : x)),
                    )
                  }
                  onRemove={
                    draft.followers.length > 1
                      ? () =>
                          set(
                            "followers",
                            draft.followers.filter((_, j) => j !== i),
                          )
                      : undefined
                  }
                />
              );
            })}
            {canWrite ? (
              <Button
                variant="secondary"
                size="sm"
                className="justify-self-start"
                disabled={disabled}
                onClick={() => set("followers", [...draft.followers, newFollower(first)])}
              >
                <Plus aria-hidden />
                Add follower
              </Button>
            ) : null}
          </div>
          {changes.length > 0 ? (
            <section aria-labelledby="copied-changes-title" className="grid gap-1 rounded-md border border-warning/40 bg-warning/10 p-3 text-sm">
              <h3 id="copied-changes-title" className="font-semibold">
                What changes for positions already copied
              </h3>
              <ul className="list-disc pl-5">
                {changes.map((line) => (
                  <li key={line}>{line}</li>
                ))}
              </ul>
            </section>
          ) : null}
          <div className="flex flex-wrap items-center gap-2">
            <Button
              variant="secondary"
              size="sm"
              loading={preview.isPending}
              onClick={() => {
                const body = validated();
                if (body) preview.mutate(body);
              }}
            >
              <Eye aria-hidden />
              Preview on the last 7 days
            </Button>
            <span className="text-xs text-muted">What this link would have copied from the source&apos;s history, and what it would have skipped.</span>
          </div>
          {preview.data ? <LinkPreview preview={preview.data} nameOf={nameOf} /> : null}
          <FormAlert message={failure} />
        </form>
      </DialogContent>
    </DialogRoot>
  );
}
