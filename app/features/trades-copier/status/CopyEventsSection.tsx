import { useInfiniteQuery } from "@tanstack/react-query";
import type { ColDef } from "ag-grid-community";
import { useMemo, useState } from "react";
import { api } from "~/api";
import { useCurrentOrganizationId, useMemberPreferences } from "~/profile";
import { Button } from "~/ui/Button";
import { ColumnPreferenceProvider, DataGrid, dateTimeColumn, integerColumn, textColumn } from "~/ui/grid";
import { Section } from "~/ui/Section";
import { Select } from "~/ui/Select";
import { EVENTS_GRID_STATE_KEY, EVENTS_PAGE, EVENTS_PATH, eventsKey, STATUS_REFRESH_MS, type CopyEvent, type CopyEvents, type LinkStatus } from "./statusApi";

interface EventRow extends CopyEvent {
  followerText: string;
}

const ALL = "all";

/** The failed and skipped copies with their reasons, newest first, a page at a time ("Show older"); filtered by link and state. */
export function CopyEventsSection({ links }: { links: readonly LinkStatus[] }) {
  const organizationId = useCurrentOrganizationId();
  const preferences = useMemberPreferences();
  const [linkId, setLinkId] = useState(ALL);
  const [state, setState] = useState(ALL);
  const events = useInfiniteQuery({
    queryKey: eventsKey(organizationId, linkId, state),
    initialPageParam: null as string | null,
    queryFn: ({ signal, pageParam }) => {
      const query = new URLSearchParams({ limit: String(EVENTS_PAGE) });
      if (linkId !== ALL) query.set("linkId", linkId);
      if (state !== ALL) query.set("state", state);
      if (pageParam) query.set("before", pageParam);
      return api.get<CopyEvents>(`${EVENTS_PATH}?${query}`, { signal });
    },
    getNextPageParam: (last) => last.next,
    refetchInterval: STATUS_REFRESH_MS,
  });
  const nameOf = useMemo(() => {
    const names = new Map<string, string>();
    for (const l of links) for (const f of l.followers) names.set(`${f.account.platformId}|${f.account.login}`, f.platformName);
    return names;
  }, [links]);
  const rows = useMemo<EventRow[]>(
    () =>
      (events.data?.pages ?? [])
        .flatMap((p) => p.events)
        .map((e) => ({ ...e, followerText: `${nameOf.get(`${e.follower.platformId}|${e.follower.login}`) ?? "Platform"} · ${e.follower.login}` })),
    [events.data, nameOf],
  );
  const columns = useMemo<ColDef<EventRow>[]>(
    () => [
      dateTimeColumn({ field: "decidedAt", headerName: "Decided" }),
      textColumn({ field: "state", headerName: "State", width: 100, valueFormatter: (p) => (p.value === "failed" ? "Failed" : "Skipped") }),
      textColumn({ field: "reasonText", headerName: "Reason", width: 280, tooltipField: "reasonText" }),
      textColumn({ field: "linkName", headerName: "Link", width: 160 }),
      textColumn({ field: "followerText", headerName: "Follower", width: 180 }),
      textColumn({ field: "sourceAction", headerName: "Source action", width: 130 }),
      textColumn({ field: "symbol", headerName: "Symbol", width: 110 }),
      textColumn({ field: "volume", headerName: "Lots", width: 90, type: "rightAligned", cellClass: "text-right tabular-nums" }),
      textColumn({ field: "sourceId", headerName: "Source", width: 170 }),
      integerColumn({ field: "attempts", headerName: "Attempts", width: 110 }),
    ],
    [],
  );
  return (
    <Section
      title="Failed and skipped copies"
      description="Newest first, with the platform's reason for a failure and the copy rule's for a skip."
      actions={
        <div className="flex flex-wrap gap-2">
          <Select
            aria-label="Link of the copies shown"
            className="w-48"
            value={linkId}
            onValueChange={setLinkId}
            options={[{ value: ALL, label: "Every link" }, ...links.map((l) => ({ value: l.id, label: l.name }))]}
          />
          <Select
            aria-label="Failed or skipped"
            className="w-48"
            value={state}
            onValueChange={setState}
            options={[
              { value: ALL, label: "Failed and skipped" },
              { value: "failed", label: "Failed" },
              { value: "skipped", label: "Skipped" },
            ]}
          />
        </div>
      }
    >
      <ColumnPreferenceProvider store={preferences}>
        <DataGrid<EventRow>
          label="Failed and skipped copies"
          stateKey={EVENTS_GRID_STATE_KEY}
          columnDefs={columns}
          rowData={rows}
          getRowId={(p) => p.data.requestId}
          // One text: AG Grid keeps the no-rows overlay it was first given, so a "Loading…" would stay.
          emptyText="No failed or skipped copy."
          className="h-[20rem]"
        />
      </ColumnPreferenceProvider>
      {events.hasNextPage ? (
        <div>
          <Button variant="secondary" loading={events.isFetchingNextPage} onClick={() => void events.fetchNextPage()}>
            Show older
          </Button>
        </div>
      ) : null}
    </Section>
  );
}
