import { Bot, Plus } from "lucide-react";
import { useState } from "react";
import { MODULES, type Module } from "@core/access";
import type { ApiClientView } from "@core/schemas/apiClients";
import { MODULE_LABELS } from "~/features/members";
import { useAccess } from "~/profile";
import { Badge } from "~/ui/Badge";
import { Button } from "~/ui/Button";
import { Card } from "~/ui/Card";
import { DialogContent, DialogRoot } from "~/ui/Dialog";
import { formatDateTime } from "~/ui/grid";
import { Section } from "~/ui/Section";
import { Skeleton } from "~/ui/Skeleton";
import { toast } from "~/ui/toast";
import { useApiClients, useRevokeApiClient } from "./apiClientsApi";
import { CreateApiClientDialog } from "./CreateApiClientDialog";

function permissionSummary(permissions: Record<string, string[]>): string[] {
  return MODULES.filter((m) => permissions[m]?.length).map((m: Module) => `${MODULE_LABELS[m]}: ${permissions[m]!.join(", ")}`);
}

/** Settings › Security › API clients: machine access with client credentials (settings read to see, write to manage). */
export function ApiClientsSection() {
  const access = useAccess();
  const canRead = access.hasModule("settings", "read");
  const canWrite = access.hasModule("settings", "write");
  const clients = useApiClients(canRead);
  const [creating, setCreating] = useState(false);
  const [revoking, setRevoking] = useState<ApiClientView | null>(null);

  return (
    <Section
      title="API clients"
      description="Programs that call Toolbox's API for this organization with a client id and secret (OAuth client credentials), with the permissions you give them."
      actions={
        canWrite ? (
          <Button onClick={() => setCreating(true)}>
            <Plus aria-hidden />
            New API client
          </Button>
        ) : undefined
      }
    >
      {!canRead ? (
        <p className="text-sm text-muted">
          You need the &quot;read&quot; permission on the &quot;settings&quot; module to see the API clients. Ask the administrator.
        </p>
      ) : !clients.data ? (
        <Skeleton className="h-24" />
      ) : clients.data.length === 0 ? (
        <p className="text-sm text-muted">No API clients yet.</p>
      ) : (
        <Card className="overflow-hidden">
          <ul className="divide-y divide-border" aria-label="API clients">
            {clients.data.map((c) => (
              <li key={c.clientId} className="flex flex-wrap items-center gap-3 px-4 py-3">
                <Bot aria-hidden className="size-4 text-muted" />
                <div className="min-w-0 flex-1">
                  <div className="flex flex-wrap items-center gap-2">
                    <span className="truncate font-medium">{c.name}</span>
                    <code className="rounded bg-subtle px-1.5 py-0.5 font-mono text-xs">{c.clientId}</code>
                  </div>
                  <div className="mt-1 flex flex-wrap gap-1">
                    {permissionSummary(c.permissions).map((p) => (
                      <Badge key={p} tone="outline">
                        {p}
                      </Badge>
                    ))}
                  </div>
                  <div className="mt-1 text-xs text-muted">
                    Created {formatDateTime(c.createdAt)} by {c.createdBy} · {c.lastUsedAt ? `last used ${formatDateTime(c.lastUsedAt)}` : "never used"}
                  </div>
                </div>
                {canWrite ? (
                  <Button variant="secondary" size="sm" aria-label={`Revoke the API client ${c.name}`} onClick={() => setRevoking(c)}>
                    Revoke
                  </Button>
                ) : null}
              </li>
            ))}
          </ul>
        </Card>
      )}
      {creating ? <CreateApiClientDialog onClose={() => setCreating(false)} /> : null}
      {revoking ? <RevokeDialog client={revoking} onClose={() => setRevoking(null)} /> : null}
    </Section>
  );
}

function RevokeDialog({ client, onClose }: { client: ApiClientView; onClose: () => void }) {
  const revoke = useRevokeApiClient();
  const confirm = async () => {
    const done = await revoke.mutateAsync(client.clientId).then(
      () => true,
      () => false,
    );
    if (!done) return;
    toast({ title: "API client revoked", description: `${client.name} can no longer call the API.`, color: "success" });
    onClose();
  };
  return (
    <DialogRoot open onOpenChange={(open) => !open && onClose()}>
      <DialogContent
        title={`Revoke "${client.name}"?`}
        footer={
          <>
            <Button variant="secondary" onClick={onClose}>
              Keep
            </Button>
            <Button variant="danger" loading={revoke.isPending} onClick={() => void confirm()}>
              Revoke {client.name}
            </Button>
          </>
        }
      >
        <p className="text-sm">
          The program using <code className="font-mono">{client.clientId}</code> gets no new tokens, and the tokens it holds stop working at once. This cannot
          be undone.
        </p>
      </DialogContent>
    </DialogRoot>
  );
}
