import { cn } from "~/ui/cn";
import { diffLines } from "./diff";

const MARK = { added: "Added", removed: "Removed", changed: "Changed", same: "Unchanged" } as const;

/** Before and after as a table of the fields that differ (unchanged ones dimmed). */
export function AuditDiff({ before, after }: { before: unknown; after: unknown }) {
  const lines = diffLines(before, after);
  if (lines.length === 0) return <p className="text-sm text-muted">No before or after recorded for this action.</p>;
  return (
    <table className="w-full table-fixed text-sm" aria-label="Changes">
      <thead>
        <tr className="border-b border-border text-left text-xs text-muted">
          <th scope="col" className="w-1/3 py-1.5 pr-2 font-medium">
            Field
          </th>
          <th scope="col" className="py-1.5 pr-2 font-medium">
            Before
          </th>
          <th scope="col" className="py-1.5 font-medium">
            After
          </th>
        </tr>
      </thead>
      <tbody>
        {lines.map((line) => (
          <tr key={line.path} className={cn("border-b border-border/60 align-top", line.kind === "same" && "text-muted")} data-change={line.kind}>
            <th scope="row" className="py-1.5 pr-2 text-left font-mono text-xs font-normal break-all">
              {line.path}
              <span className="sr-only"> ({MARK[line.kind]})</span>
            </th>
            <td className={cn("py-1.5 pr-2 font-mono text-xs break-all", line.kind !== "same" && line.before !== undefined && "text-danger line-through")}>
              {line.before ?? "—"}
            </td>
            <td className={cn("py-1.5 font-mono text-xs break-all", line.kind !== "same" && line.after !== undefined && "text-success")}>
              {line.after ?? "—"}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
