import type { ColDef, GridApi } from "ag-grid-community";
import { Columns3, RotateCcw } from "lucide-react";
import { useState } from "react";
import { Button } from "../Button";
import {
  DropdownMenu,
  DropdownMenuCheckboxItem,
  DropdownMenuContent,
  DropdownMenuItem,
  DropdownMenuLabel,
  DropdownMenuSeparator,
  DropdownMenuTrigger,
} from "../DropdownMenu";
import { defaultColumnState } from "./columnState";

interface ColumnChoice {
  id: string;
  label: string;
  visible: boolean;
}

/** Show or hide columns, or go back to the table's default layout (the choice is saved with the layout). */
export function ColumnsMenu<T>({ api, columnDefs }: { api: GridApi<T> | null; columnDefs: readonly ColDef<T>[] }) {
  const [choices, setChoices] = useState<ColumnChoice[]>([]);
  const read = () =>
    setChoices(
      (api?.getColumns() ?? [])
        .filter((c) => !c.getColDef().lockVisible)
        .map((c) => ({ id: c.getColId(), label: c.getColDef().headerName ?? c.getColId(), visible: c.isVisible() })),
    );
  return (
    <DropdownMenu onOpenChange={(open) => open && read()}>
      <DropdownMenuTrigger asChild>
        <Button variant="secondary" size="sm" disabled={!api}>
          <Columns3 aria-hidden />
          Columns
        </Button>
      </DropdownMenuTrigger>
      <DropdownMenuContent align="end" className="max-h-96 overflow-y-auto">
        <DropdownMenuLabel>Show columns</DropdownMenuLabel>
        {choices.map((c) => (
          <DropdownMenuCheckboxItem
            key={c.id}
            checked={c.visible}
            // Keep the menu open: people usually change several columns at once.
            onSelect={(e) => e.preventDefault()}
            onCheckedChange={(visible) => {
              api?.setColumnsVisible([c.id], visible);
              setChoices((all) => all.map((x) => (x.id === c.id ? { ...x, visible } : x)));
            }}
          >
            {c.label}
          </DropdownMenuCheckboxItem>
        ))}
        <DropdownMenuSeparator />
        <DropdownMenuItem onSelect={() => api?.applyColumnState({ state: defaultColumnState(columnDefs as ColDef[]), applyOrder: true })}>
          <RotateCcw aria-hidden />
          Reset columns
        </DropdownMenuItem>
      </DropdownMenuContent>
    </DropdownMenu>
  );
}
