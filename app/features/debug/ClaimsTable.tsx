import type { Claim } from "~/profile";

/** The person's claims (docs/requirements.md#r-entities), values split on commas as the access rule reads them. */
export function ClaimsTable({ claims }: { claims: readonly Claim[] }) {
  if (!claims.length) return <p className="text-sm text-muted">No claims.</p>;
  return (
    <div className="overflow-x-auto">
      <table className="w-full text-left text-sm">
        <thead className="text-xs text-muted">
          <tr className="border-b border-border">
            <th scope="col" className="py-2 pr-4 font-medium">
              Type
            </th>
            <th scope="col" className="py-2 font-medium">
              Values
            </th>
          </tr>
        </thead>
        <tbody className="divide-y divide-border">
          {claims.map((c, i) => (
            <tr key={`${c.type}-${i}`}>
              <td className="py-2 pr-4 font-mono text-xs break-all">{c.type}</td>
              <td className="py-2 font-mono text-xs break-all">
                {c.value
                  .split(",")
                  .map((v) => v.trim())
                  .join(", ")}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
