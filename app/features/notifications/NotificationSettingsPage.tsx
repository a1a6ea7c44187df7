import { currentFormat } from "~/ui/format";
import { useState, type FormEvent } from "react";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Bell, Mail, Send, Trash2, Webhook } from "lucide-react";
import { CHANNEL_KINDS, NOTIFICATION_TYPE_LABELS, NOTIFICATION_TYPES, type ChannelKind, type NotificationType } from "@core/notifications";
import { ApiError } from "~/api";
import { useAccess, useCurrentOrganizationId } from "~/profile";
import { Badge } from "~/ui/Badge";
import { Button } from "~/ui/Button";
import { DialogContent, DialogRoot, DialogTrigger } from "~/ui/Dialog";
import { EmptyState } from "~/ui/EmptyState";
import { Field } from "~/ui/Field";
import { FormAlert } from "~/ui/FormAlert";
import { Input } from "~/ui/Input";
import { Section } from "~/ui/Section";
import { Select } from "~/ui/Select";
import { Skeleton } from "~/ui/Skeleton";
import { Switch } from "~/ui/Switch";
import { toast } from "~/ui/toast";
import { notificationsApi, notificationsKey, type Channel, type NotificationRule, type NotificationSettings } from "./notificationsApi";

const KIND_LABEL: Record<ChannelKind, string> = { email: "E-mail", telegram: "Telegram", webhook: "Webhook" };
const KIND_ICON = { email: Mail, telegram: Send, webhook: Webhook } as const;
const DEFAULT_RULE: NotificationRule = { inbox: true, channels: "all", members: "all" };

function messageOf(error: unknown): string {
  return error instanceof ApiError && error.status ? error.message : "Toolbox's service did not answer. Try again in a moment.";
}

/** /settings/notifications: the channels, which events go where, and the inbox's retention. */
export function NotificationSettingsPage() {
  const organizationId = useCurrentOrganizationId();
  const { hasModule } = useAccess();
  const canWrite = hasModule("settings", "write");
  const settings = useQuery({ queryKey: notificationsKey(organizationId, "settings"), queryFn: ({ signal }) => notificationsApi.settings(signal) });
  const channels = useQuery({ queryKey: notificationsKey(organizationId, "channels"), queryFn: ({ signal }) => notificationsApi.channels(signal) });

  return (
    <div className="grid gap-8">
      <Section title="Channels" description="The in-app inbox is always on. Add e-mail, Telegram or a webhook to be told elsewhere too.">
        <ChannelList channels={channels.data} loading={channels.isPending} canWrite={canWrite} />
        {canWrite ? <AddChannelForm /> : null}
      </Section>
      <Section title="Rules" description="Which events go to which channels, and whose inbox shows them.">
        {settings.data && channels.data ? (
          <RulesForm key={JSON.stringify(settings.data)} settings={settings.data} channels={channels.data} canWrite={canWrite} />
        ) : (
          <Skeleton className="h-64 w-full" />
        )}
      </Section>
    </div>
  );
}

function useRefresh() {
  const organizationId = useCurrentOrganizationId();
  const queryClient = useQueryClient();
  return () => queryClient.invalidateQueries({ queryKey: ["notifications", organizationId] });
}

function ChannelList({ channels, loading, canWrite }: { channels: Channel[] | undefined; loading: boolean; canWrite: boolean }) {
  if (loading) return <Skeleton className="h-20 w-full" />;
  if (!channels?.length) return <EmptyState icon={Bell} title="No channels yet" description="Notifications reach the members' inboxes only." />;
  return (
    <ul className="grid gap-2" aria-label="Channels">
      {channels.map((c) => (
        <ChannelRow key={c.id} channel={c} canWrite={canWrite} />
      ))}
    </ul>
  );
}

function target(c: Channel): string {
  const text = (v: unknown) => (typeof v === "string" ? v : "");
  if (c.kind === "webhook") return text(c.settings.url);
  if (c.kind === "telegram") return `chat ${text(c.settings.chatId)}`;
  return ((c.settings.to as string[] | undefined) ?? []).join(", ");
}

function ChannelRow({ channel: c, canWrite }: { channel: Channel; canWrite: boolean }) {
  const refresh = useRefresh();
  const Icon = KIND_ICON[c.kind];
  const toggle = useMutation({ mutationFn: (enabled: boolean) => notificationsApi.updateChannel(c.id, { enabled }), onSuccess: refresh });
  const remove = useMutation({ mutationFn: () => notificationsApi.deleteChannel(c.id), onSuccess: refresh });
  const test = useMutation({
    mutationFn: () => notificationsApi.test(c.id),
    onSuccess: (result) => {
      void refresh();
      toast(
        result.delivered
          ? { title: "Test sent", description: `"${c.name}" accepted the test message.`, color: "success", icon: "success" }
          : { title: "Error", description: `"${c.name}" did not take the test message: ${result.error ?? "unknown error"}`, color: "error", icon: "warning" },
      );
    },
  });
  return (
    <li className="flex flex-wrap items-center gap-3 rounded-lg border border-border bg-surface p-3" aria-label={`${KIND_LABEL[c.kind]} channel ${c.name}`}>
      <Icon aria-hidden className="size-5 shrink-0 text-muted" />
      <div className="grid min-w-0 flex-1 gap-0.5">
        <div className="flex flex-wrap items-center gap-2">
          <p className="text-sm font-medium">{c.name}</p>
          <Badge tone="outline">{KIND_LABEL[c.kind]}</Badge>
          {c.enabled ? <Badge tone="success">On</Badge> : <Badge tone="neutral">Off</Badge>}
          {c.consecutiveFailures > 0 ? <Badge tone="warning">{`${c.consecutiveFailures} failed in a row`}</Badge> : null}
        </div>
        {c.kind === "email" ? <Recipients channel={c} canWrite={canWrite} /> : <p className="truncate text-xs text-muted">{target(c)}</p>}
        {c.disabledReason ? <p className="text-xs text-danger">{c.disabledReason}</p> : null}
      </div>
      <div className="flex items-center gap-2">
        <Switch checked={c.enabled} disabled={!canWrite || toggle.isPending} onCheckedChange={(on) => toggle.mutate(on)} aria-label={`${c.name} on`} />
        <DeliveryLog channel={c} />
        {canWrite ? (
          <>
            <Button variant="secondary" size="sm" onClick={() => test.mutate()} loading={test.isPending}>
              Send test
            </Button>
            <Button variant="ghost" size="icon" aria-label={`Delete ${c.name}`} onClick={() => remove.mutate()} loading={remove.isPending}>
              <Trash2 aria-hidden className="size-4" />
            </Button>
          </>
        ) : null}
      </div>
    </li>
  );
}

/**
 * An e-mail channel's addresses: each mails only once confirmed (the link Toolbox sent it), so
 * each shows whether it has; waiting ones can be sent their link again (docs/notifications.md).
 */
function Recipients({ channel: c, canWrite }: { channel: Channel; canWrite: boolean }) {
  const refresh = useRefresh();
  const recipients = c.recipients ?? [];
  const waiting = recipients.filter((r) => !r.confirmed).length;
  const resend = useMutation({
    mutationFn: () => notificationsApi.resendConfirmations(c.id),
    onSuccess: (result) => {
      void refresh();
      toast({
        title: "Confirmation sent again",
        description: `${result.requested} address${result.requested === 1 ? "" : "es"} of "${c.name}" will get a new confirmation link.`,
        color: "success",
        icon: "success",
      });
    },
  });
  return (
    <div className="grid gap-1">
      <ul className="flex flex-wrap gap-x-3 gap-y-1 text-xs" aria-label={`Recipients of ${c.name}`}>
        {recipients.map((r) => (
          <li key={r.address} className="flex items-center gap-1">
            <span className="text-muted">{r.address}</span>
            {r.confirmed ? <Badge tone="success">Confirmed</Badge> : <Badge tone="warning">Waiting for confirmation</Badge>}
          </li>
        ))}
      </ul>
      {waiting > 0 ? (
        <p className="flex flex-wrap items-center gap-2 text-xs text-muted">
          Nothing is mailed to an address until it confirms with the link Toolbox sent it.
          {canWrite ? (
            <Button variant="ghost" size="sm" onClick={() => resend.mutate()} loading={resend.isPending}>
              Send the confirmation again
            </Button>
          ) : null}
        </p>
      ) : null}
    </div>
  );
}

function DeliveryLog({ channel }: { channel: Channel }) {
  const organizationId = useCurrentOrganizationId();
  const [open, setOpen] = useState(false);
  const log = useQuery({
    queryKey: notificationsKey(organizationId, ["deliveries", channel.id]),
    queryFn: ({ signal }) => notificationsApi.deliveries(channel.id, signal),
    enabled: open,
    staleTime: 0,
  });
  return (
    <DialogRoot open={open} onOpenChange={setOpen}>
      <DialogTrigger asChild>
        <Button variant="ghost" size="sm">
          Delivery log
        </Button>
      </DialogTrigger>
      <DialogContent title={`Deliveries of ${channel.name}`} description="The latest 100, newest first." className="max-w-2xl">
        {log.isPending ? (
          <Skeleton className="h-24 w-full" />
        ) : !log.data?.length ? (
          <p className="text-sm text-muted">Nothing sent yet.</p>
        ) : (
          <table className="w-full text-left text-sm">
            <thead className="text-xs text-muted">
              <tr>
                <th className="py-1 pr-2 font-medium">When</th>
                <th className="py-1 pr-2 font-medium">Event</th>
                <th className="py-1 pr-2 font-medium">Status</th>
                <th className="py-1 pr-2 font-medium">Tries</th>
                <th className="py-1 font-medium">Last answer</th>
              </tr>
            </thead>
            <tbody>
              {log.data.map((d) => (
                <tr key={d.id} className="border-t border-border align-top">
                  <td className="py-1 pr-2 whitespace-nowrap">{currentFormat().dateTime(d.createdAt)}</td>
                  <td className="py-1 pr-2">{d.type === "test" ? "Test" : (NOTIFICATION_TYPE_LABELS[d.type as NotificationType] ?? d.type)}</td>
                  <td className="py-1 pr-2">
                    <Badge tone={d.status === "delivered" ? "success" : d.status === "failed" ? "danger" : "info"}>{d.status}</Badge>
                  </td>
                  <td className="py-1 pr-2 tabular-nums">{d.attempts}</td>
                  <td className="py-1 text-xs text-muted">{d.lastError ?? (d.lastStatus ? `HTTP ${d.lastStatus}` : "")}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </DialogContent>
    </DialogRoot>
  );
}

function AddChannelForm() {
  const refresh = useRefresh();
  const [kind, setKind] = useState<ChannelKind>("webhook");
  const [name, setName] = useState("");
  const [url, setUrl] = useState("");
  const [secret, setSecret] = useState("");
  const [chatId, setChatId] = useState("");
  const [botToken, setBotToken] = useState("");
  const [to, setTo] = useState("");
  const [error, setError] = useState<string | null>(null);
  const create = useMutation({
    mutationFn: () => {
      const base = { name, enabled: true };
      if (kind === "webhook") return notificationsApi.createChannel({ ...base, kind, settings: { url }, secret });
      if (kind === "telegram") return notificationsApi.createChannel({ ...base, kind, settings: { chatId }, botToken });
      return notificationsApi.createChannel({ ...base, kind, settings: { to: to.split(/[,\s]+/).filter(Boolean) } });
    },
    onSuccess: (channel) => {
      setName("");
      setUrl("");
      setSecret("");
      setChatId("");
      setBotToken("");
      setTo("");
      void refresh();
      toast({ title: "Channel added", description: `"${channel.name}" will carry notifications as the rules say.`, color: "success", icon: "success" });
    },
    onError: (e) => setError(messageOf(e)),
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setError(null);
    create.mutate();
  };
  return (
    <form onSubmit={submit} className="mt-4 grid gap-3 rounded-lg border border-dashed border-border p-4" aria-label="Add a channel">
      <p className="text-sm font-medium">Add a channel</p>
      <div className="grid gap-3 sm:grid-cols-2">
        <Field label="Kind">
          <Select value={kind} onValueChange={(v) => setKind(v as ChannelKind)} options={CHANNEL_KINDS.map((k) => ({ value: k, label: KIND_LABEL[k] }))} />
        </Field>
        <Field label="Name">
          <Input value={name} onChange={(e) => setName(e.target.value)} required maxLength={80} placeholder="Dealing desk" />
        </Field>
        {kind === "webhook" ? (
          <>
            <Field label="URL" description="Toolbox POSTs JSON here, signed with the secret (docs/notifications.md).">
              <Input type="url" value={url} onChange={(e) => setUrl(e.target.value)} required placeholder="https://hooks.example.com/toolbox" />
            </Field>
            <Field label="Secret" description="At least 16 characters; stored encrypted, never shown again.">
              <Input type="password" value={secret} onChange={(e) => setSecret(e.target.value)} required minLength={16} autoComplete="new-password" />
            </Field>
          </>
        ) : kind === "telegram" ? (
          <>
            <Field label="Bot token" description="From @BotFather; stored encrypted, never shown again.">
              <Input type="password" value={botToken} onChange={(e) => setBotToken(e.target.value)} required autoComplete="off" />
            </Field>
            <Field label="Chat id" description="A numeric chat id, or @channelname.">
              <Input value={chatId} onChange={(e) => setChatId(e.target.value)} required />
            </Field>
          </>
        ) : (
          <Field label="Recipients" description="E-mail addresses, separated by commas." className="sm:col-span-2">
            <Input value={to} onChange={(e) => setTo(e.target.value)} required placeholder="desk@example.com, risk@example.com" />
          </Field>
        )}
      </div>
      <FormAlert message={error} />
      <div>
        <Button type="submit" loading={create.isPending}>
          Add channel
        </Button>
      </div>
    </form>
  );
}

function RulesForm({ settings, channels, canWrite }: { settings: NotificationSettings; channels: Channel[]; canWrite: boolean }) {
  const refresh = useRefresh();
  const [rules, setRules] = useState(settings.rules);
  const [retention, setRetention] = useState(String(settings.retentionDays));
  const [threshold, setThreshold] = useState(settings.largeBalanceThreshold ?? "");
  const [error, setError] = useState<string | null>(null);
  const ruleOf = (type: NotificationType): NotificationRule => ({ ...DEFAULT_RULE, ...rules[type] });
  const change = (type: NotificationType, patch: Partial<NotificationRule>) => setRules((r) => ({ ...r, [type]: { ...ruleOf(type), ...patch } }));
  const toggleChannel = (type: NotificationType, id: string, on: boolean) => {
    const current = ruleOf(type).channels;
    const list = current === "all" ? channels.map((c) => c.id) : current;
    const next = on ? [...new Set([...list, id])] : list.filter((x) => x !== id);
    change(type, { channels: next.length === channels.length && channels.length > 0 ? "all" : next });
  };
  const save = useMutation({
    mutationFn: () =>
      notificationsApi.saveSettings({ retentionDays: Number(retention), largeBalanceThreshold: threshold.trim() ? threshold.trim() : null, rules }),
    onSuccess: () => {
      void refresh();
      toast({ title: "Notifications saved", description: "The rules apply to the next events.", color: "success", icon: "success" });
    },
    onError: (e) => setError(messageOf(e)),
  });
  const types = NOTIFICATION_TYPES.filter((t) => t !== "channelDisabled");
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        setError(null);
        save.mutate();
      }}
      className="grid gap-4"
      aria-label="Rules"
    >
      <div className="overflow-x-auto rounded-lg border border-border">
        <table className="w-full text-left text-sm">
          <thead className="bg-subtle text-xs text-muted">
            <tr>
              <th scope="col" className="px-3 py-2 font-medium">
                Event
              </th>
              <th scope="col" className="px-3 py-2 font-medium">
                Inbox
              </th>
              <th scope="col" className="px-3 py-2 font-medium">
                Whose inbox
              </th>
              {channels.map((c) => (
                <th key={c.id} scope="col" className="px-3 py-2 font-medium">
                  {c.name}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {types.map((type) => {
              const rule = ruleOf(type);
              const label = NOTIFICATION_TYPE_LABELS[type];
              return (
                <tr key={type} className="border-t border-border">
                  <th scope="row" className="px-3 py-2 font-medium">
                    {label}
                  </th>
                  <td className="px-3 py-2">
                    <input
                      type="checkbox"
                      className="size-4 accent-[var(--color-primary)]"
                      checked={rule.inbox}
                      disabled={!canWrite}
                      onChange={(e) => change(type, { inbox: e.target.checked })}
                      aria-label={`${label}: inbox`}
                    />
                  </td>
                  <td className="px-3 py-2">
                    <Select
                      aria-label={`${label}: whose inbox`}
                      className="w-44"
                      disabled={!canWrite || !rule.inbox}
                      value={Array.isArray(rule.members) ? "all" : rule.members}
                      onValueChange={(v) => change(type, { members: v as "all" | "admins" })}
                      options={[
                        { value: "all", label: "Every member" },
                        { value: "admins", label: "Administrators" },
                      ]}
                    />
                  </td>
                  {channels.map((c) => (
                    <td key={c.id} className="px-3 py-2">
                      <input
                        type="checkbox"
                        className="size-4 accent-[var(--color-primary)]"
                        checked={rule.channels === "all" || rule.channels.includes(c.id)}
                        disabled={!canWrite}
                        onChange={(e) => toggleChannel(type, c.id, e.target.checked)}
                        aria-label={`${label}: ${c.name}`}
                      />
                    </td>
                  ))}
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
      <div className="grid gap-3 sm:grid-cols-2">
        <Field label="Keep notifications for (days)" description="Older ones leave every inbox; 1 to 3650.">
          <Input type="number" min={1} max={3650} value={retention} onChange={(e) => setRetention(e.target.value)} disabled={!canWrite} required />
        </Field>
        <Field
          label="Large balance operation from"
          description="An amount in each account's own currency (1000 is 1,000 USD on a USD account, 1,000 EUR on a EUR one); empty: no such notifications."
        >
          <Input inputMode="decimal" value={threshold} onChange={(e) => setThreshold(e.target.value)} disabled={!canWrite} placeholder="10000" />
        </Field>
      </div>
      <FormAlert message={error} />
      {canWrite ? (
        <div>
          <Button type="submit" loading={save.isPending}>
            Save rules
          </Button>
        </div>
      ) : null}
    </form>
  );
}
