import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { ColDef, ICellRendererParams } from "ag-grid-community";
import { Copy, Plus } from "lucide-react";
import { useMemo, useState } from "react";
import type { CopyLink } from "@core/schemas/copier";
import { api } from "~/api";
import { useAccess, useCurrentOrganizationId, useMemberPreferences } from "~/profile";
import { Button } from "~/ui/Button";
import { DialogContent, DialogRoot } from "~/ui/Dialog";
import { EmptyState } from "~/ui/EmptyState";
import { ColumnPreferenceProvider, DataGrid, dateTimeColumn, integerColumn, textColumn } from "~/ui/grid";
import { Section } from "~/ui/Section";
import { Switch } from "~/ui/Switch";
import { toast } from "~/ui/toast";
import { LinkDialog } from "./LinkDialog";
import { LINKS_GRID_STATE_KEY, LINKS_PATH, linksKey, PLATFORMS_PATH, platformsKey, type CopierPlatform } from "./linksApi";

interface LinkRow extends CopyLink {
  sourceText: string;
  followerCount: number;
}

/** `/apps/trades-copier`: the organization's copy links in a grid; a row opens the link to edit, "New link" adds one. */
export function TradesCopierLinksPage() {
  const { hasModule } = useAccess();
  const canRead = hasModule("tradesCopier", "read");
  const canWrite = hasModule("tradesCopier", "write");
  const organizationId = useCurrentOrganizationId();
  const preferences = useMemberPreferences();
  const queryClient = useQueryClient();
  const links = useQuery({ queryKey: linksKey(organizationId), queryFn: ({ signal }) => api.get<CopyLink[]>(LINKS_PATH, { signal }), enabled: canRead });
  const platforms = useQuery({
    queryKey: platformsKey(organizationId),
    queryFn: ({ signal }) => api.get<CopierPlatform[]>(PLATFORMS_PATH, { signal }),
    enabled: canRead,
  });
  const [open, setOpen] = useState<CopyLink | "new" | null>(null);
  const [deleting, setDeleting] = useState<CopyLink | null>(null);
  const refresh = () => void queryClient.invalidateQueries({ queryKey: linksKey(organizationId) });

  const toggle = useMutation({
    mutationFn: (link: CopyLink) =>
      api.put<CopyLink>(`${LINKS_PATH}/${link.id}/enabled`, { enabled: !link.enabled }, { headers: { "If-Match": `"${link.version}"` } }),
    onSuccess: (saved) => toast({ title: saved.enabled ? "Link enabled" : "Link disabled", description: saved.name, color: "success" }),
    onSettled: refresh,
  });
  const remove = useMutation({
    mutationFn: (link: CopyLink) => api.del(`${LINKS_PATH}/${link.id}`, undefined, { headers: { "If-Match": `"${link.version}"` } }),
    onSuccess: (_, link) => {
      toast({ title: "Link deleted", description: link.name, color: "success" });
      setDeleting(null);
      setOpen(null);
    },
    onSettled: refresh,
  });

  const nameOf = useMemo(() => new Map((platforms.data ?? []).map((p) => [p.id, p.name])), [platforms.data]);
  const rows: LinkRow[] = useMemo(
    () =>
      (links.data ?? []).map((l) => ({
        ...l,
        sourceText: `${nameOf.get(l.source.platformId) ?? "Unassigned platform"} · ${l.source.login}`,
        followerCount: l.followers.length,
      })),
    [links.data, nameOf],
  );
  const columns = useMemo<ColDef<LinkRow>[]>(
    () => [
      textColumn({ field: "name", headerName: "Name", width: 220 }),
      textColumn({ field: "sourceText", headerName: "Source account", width: 240 }),
      integerColumn({ field: "followerCount", headerName: "Followers", width: 120 }),
      textColumn({
        field: "enabled",
        headerName: "Enabled",
        width: 120,
        cellRenderer: (p: ICellRendererParams<LinkRow>) =>
          p.data ? (
            <Switch
              checked={p.data.enabled}
              disabled={!canWrite}
              aria-label={`${p.data.name} enabled`}
              onClick={(e) => e.stopPropagation()}
              onCheckedChange={() => p.data && toggle.mutate(p.data)}
            />
          ) : null,
      }),
      dateTimeColumn({ field: "updatedAt", headerName: "Updated", width: 180 }),
    ],
    // eslint-disable-next-line react-hooks/exhaustive-deps -- the mutation object changes every render; its mutate does not
    [canWrite],
  );
  const platformOptions = (platforms.data ?? []).map((p) => ({ value: p.id, label: `${p.name} (${p.type})` }));

  if (!canRead) {
    return (
      <Section title="Copy links">
        <EmptyState icon={Copy} title="No access" description="Ask an administrator for Trades Copier access to see the copy links." />
      </Section>
    );
  }

  return (
    <Section
      title="Copy links"
      description="A source account's trades copied to follower accounts on any platform, live and exactly once: each enabled link copies the source's opens, partial closes, closes, stop changes and pending orders to its followers as they happen."
      actions={
        canWrite ? (
          <Button onClick={() => setOpen("new")} disabled={platformOptions.length === 0}>
            <Plus aria-hidden />
            New link
          </Button>
        ) : null
      }
    >
      {platforms.data && platformOptions.length === 0 ? (
        <p className="mb-3 text-sm text-muted">No platform has the Trades Copier assigned yet: assign the app to a platform to link its accounts.</p>
      ) : null}
      <ColumnPreferenceProvider store={preferences}>
        <DataGrid<LinkRow>
          label="Copy links"
          stateKey={LINKS_GRID_STATE_KEY}
          columnDefs={columns}
          rowData={rows}
          getRowId={(p) => p.data.id}
          onRowOpen={(row) => setOpen(row)}
          emptyText={links.isPending ? "Loading…" : "No copy link yet."}
          className="h-[calc(100dvh-20rem)] min-h-[18rem]"
        />
      </ColumnPreferenceProvider>
      {open ? (
        <LinkDialog
          link={open === "new" ? null : open}
          platforms={platformOptions}
          canWrite={canWrite}
          onClose={() => setOpen(null)}
          onSaved={() => {
            setOpen(null);
            refresh();
          }}
          onDelete={setDeleting}
          onResumed={refresh}
        />
      ) : null}
      <DialogRoot open={deleting !== null} onOpenChange={(next) => !next && setDeleting(null)}>
        {deleting ? (
          <DialogContent
            title={`Delete ${deleting.name}?`}
            description="Copying stops for its followers; positions already copied stay open on them."
            footer={
              <>
                <Button variant="secondary" onClick={() => setDeleting(null)}>
                  Cancel
                </Button>
                <Button variant="danger" loading={remove.isPending} onClick={() => remove.mutate(deleting)}>
                  Delete
                </Button>
              </>
            }
          />
        ) : null}
      </DialogRoot>
    </Section>
  );
}
