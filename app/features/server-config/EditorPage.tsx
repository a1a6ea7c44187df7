import { Download, Upload } from "lucide-react";
import { useRef, useState } from "react";
import { GROUP_PATCH_FIELDS, SYMBOL_PATCH_FIELDS } from "@core/trading/configRules";
import type { Group } from "@core/trading/group";
import type { Holiday } from "@core/trading/holiday";
import type { TradePlatformType } from "@core/trading/platform";
import type { TradeSymbol } from "@core/trading/symbol";
import { useAccess } from "~/profile";
import { Button } from "~/ui/Button";
import { saveFile } from "~/ui/saveFile";
import { Tabs, type Tab } from "~/ui/Tabs";
import { toast } from "~/ui/toast";
import { useGroups, useHolidays, useSymbols, type Item } from "./api";
import { ChangesPanel } from "./ChangesPanel";
import { HolidaysTab } from "./HolidaysTab";
import { ObjectsTab } from "./ObjectsTab";
import { useStaging } from "./store";

type TabId = "groups" | "symbols" | "holidays";

/** The configuration as exported: what the server held, object by object (versions for reference). */
export interface ExportedConfig {
  platform: TradePlatformType;
  exportedAt: string;
  groups: Group[];
  symbols: TradeSymbol[];
  holidays?: Holiday[];
}

/**
 * The MT4/MT5 and Match-Trader editors (docs/server-configuration.md): a tab per kind of object,
 * the Changes panel beside them, and export / import of the configuration as JSON; an import
 * stages the differences like any edit, so the same diff is read before applying.
 */
export function ServerConfigEditor({ platformId, platform }: { platformId: string; platform: TradePlatformType }) {
  const canWrite = useAccess().hasModule("tradePlatforms", "write");
  const groups = useGroups(platformId);
  const symbols = useSymbols(platformId);
  const metaTrader = platform !== "MatchTrader";
  const holidays = useHolidays(platformId, metaTrader);
  const [tab, setTab] = useState<TabId>("groups");
  const file = useRef<HTMLInputElement>(null);

  const exportJson = () => {
    const config: ExportedConfig = {
      platform,
      exportedAt: new Date().toISOString(),
      groups: (groups.data?.items ?? []).map((i) => i.object),
      symbols: (symbols.data?.items ?? []).map((i) => i.object),
      ...(holidays.data?.supported ? { holidays: holidays.data.holidays } : {}),
    };
    saveFile(
      new Blob([JSON.stringify(config, null, 2)], { type: "application/json" }),
      `server-configuration-${platform}-${config.exportedAt.slice(0, 10)}.json`,
    );
  };

  const importJson = async (input: File) => {
    let config: Partial<ExportedConfig>;
    try {
      config = JSON.parse(await input.text()) as Partial<ExportedConfig>;
    } catch {
      toast({ title: "Not a configuration file", description: "The file is not JSON.", color: "error" });
      return;
    }
    const { stageFields, stageHolidays } = useStaging.getState();
    const skipped: string[] = [];
    let count = 0;
    const stageAll = <T extends { name: string }>(kind: "group" | "symbol", rows: unknown, read: Item<T>[] | undefined, fields: readonly string[]) => {
      if (!Array.isArray(rows)) return;
      for (const row of rows as Record<string, unknown>[]) {
        const item = read?.find((i) => i.object.name === row.name);
        if (!item) {
          skipped.push(`${kind} ${String(row.name)}`);
          continue;
        }
        const picked = Object.fromEntries(fields.filter((f) => f in row).map((f) => [f, row[f]]));
        stageFields(platformId, kind, item.object.name, item.object, item.version, picked);
        count += 1;
      }
    };
    stageAll("group", config.groups, groups.data?.items, GROUP_PATCH_FIELDS);
    stageAll("symbol", config.symbols, symbols.data?.items, SYMBOL_PATCH_FIELDS);
    if (Array.isArray(config.holidays) && holidays.data?.supported && holidays.data.version)
      stageHolidays(platformId, holidays.data.holidays, holidays.data.version, config.holidays);
    const staged = Object.keys(useStaging.getState().staged[platformId] ?? {}).length;
    toast({
      title: "Configuration imported",
      description: `${count} object(s) compared, ${staged} change(s) staged for review.${skipped.length > 0 ? ` Not on this server (skipped): ${skipped.slice(0, 5).join(", ")}${skipped.length > 5 ? "…" : ""}.` : ""}`,
      color: skipped.length > 0 ? "warning" : "info",
    });
  };

  const tabs: Tab<TabId>[] = [
    {
      id: "groups",
      label: metaTrader ? "Groups" : "Offers / groups",
      content: () => (
        <ObjectsTab
          key="group"
          platformId={platformId}
          platform={platform}
          kind="group"
          items={groups.data?.items}
          loading={groups.isPending}
          canWrite={canWrite}
          label={metaTrader ? "Groups" : "Offers"}
        />
      ),
    },
    {
      id: "symbols",
      label: "Symbols",
      content: () => (
        <ObjectsTab
          key="symbol"
          platformId={platformId}
          platform={platform}
          kind="symbol"
          items={symbols.data?.items}
          loading={symbols.isPending}
          canWrite={canWrite}
          label="Symbols"
        />
      ),
    },
    ...(metaTrader ? [{ id: "holidays" as const, label: "Holidays", content: () => <HolidaysTab platformId={platformId} canWrite={canWrite} /> }] : []),
  ];

  return (
    <div className="grid gap-4 xl:grid-cols-[minmax(0,1fr)_24rem]">
      <div className="grid gap-3">
        <div className="flex justify-end gap-2">
          <Button variant="secondary" size="sm" onClick={exportJson} disabled={!groups.data || !symbols.data}>
            <Download className="size-4" /> Export JSON
          </Button>
          {canWrite ? (
            <>
              <Button variant="secondary" size="sm" onClick={() => file.current?.click()} disabled={!groups.data || !symbols.data}>
                <Upload className="size-4" /> Import JSON
              </Button>
              <input
                ref={file}
                type="file"
                accept="application/json,.json"
                className="hidden"
                aria-label="Configuration file to import"
                onChange={(e) => {
                  const chosen = e.target.files?.[0];
                  e.target.value = "";
                  if (chosen) void importJson(chosen);
                }}
              />
            </>
          ) : null}
        </div>
        <Tabs tabs={tabs} label="Configuration objects" selected={tab} onSelect={setTab} />
      </div>
      <ChangesPanel platformId={platformId} canWrite={canWrite} />
    </div>
  );
}
