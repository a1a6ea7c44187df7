import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { cleanup, render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import { DataGrid } from "~/ui/grid/DataGrid";

const columns = [{ field: "login" as const, headerName: "Login" }];

function Grid({ emptyText }: { emptyText: string }) {
  return (
    <QueryClientProvider client={new QueryClient()}>
      <DataGrid<{ login: string }> label="Accounts" columnDefs={columns} rowData={[]} emptyText={emptyText} />
    </QueryClientProvider>
  );
}

describe("DataGrid's empty text", () => {
  afterEach(cleanup);

  it("follows the text it is given after the grid has started (AG Grid reads its overlay component once)", async () => {
    const { rerender } = render(<Grid emptyText="Loading…" />);
    await screen.findByText("Loading…");
    rerender(<Grid emptyText="No copy link yet." />);
    await screen.findByText("No copy link yet.");
    expect(screen.queryByText("Loading…")).toBeNull();
  });
});
