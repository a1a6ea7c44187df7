import type { CopyLinkPreview, PreviewSignal } from "@core/schemas/copierPreview";
import { Badge } from "~/ui/Badge";
import { formatDateTime, formatInteger } from "~/ui/grid";

/** Signals listed per follower at most (newest first); the counts cover them all. */
const SHOWN = 50;

const SOURCE_ACTION: Record<PreviewSignal["source"]["action"], string> = {
  open: "Open",
  stops: "Stops",
  partialClose: "Partial close",
  close: "Close",
  orderPlaced: "Order placed",
  orderModified: "Order modified",
  orderCancelled: "Order cancelled",
  orderFilled: "Order filled",
};
const FOLLOWER_ACTION: Record<NonNullable<PreviewSignal["follower"]>["action"], string> = {
  open: "Open",
  modify: "Modify",
  close: "Close",
  placeOrder: "Place order",
  modifyOrder: "Modify order",
  cancelOrder: "Cancel order",
};

function sourceText(s: PreviewSignal["source"]): string {
  return `${SOURCE_ACTION[s.action]} ${s.symbol} ${s.orderType ?? s.side} ${s.volume}`;
}

function followerText(signal: PreviewSignal): string {
  if (signal.outcome === "skip") return `Skipped: ${signal.reasonText ?? signal.reason ?? "no reason given"}`;
  const f = signal.follower;
  if (signal.outcome === "nothing" || !f) return "Nothing to do";
  return `${FOLLOWER_ACTION[f.action]} ${f.symbol} ${f.orderType ?? f.side}${f.volume ? ` ${f.volume}` : ""}`;
}

/**
 * "Had this link existed over the last 7 days": per follower, how many copies and skips, and its
 * newest signals with what the follower would have done (POST /api/tradesCopier/preview).
 */
export function LinkPreview({ preview, nameOf }: { preview: CopyLinkPreview; nameOf: (platformId: string) => string }) {
  return (
    <section aria-labelledby="link-preview-title" className="grid gap-3 rounded-md border border-border p-3">
      <h3 id="link-preview-title" className="text-base font-semibold">
        Preview: {formatDateTime(preview.from)} – {formatDateTime(preview.to)}
      </h3>
      <p className="text-sm text-muted">
        {formatInteger(preview.sourceSignals)} source signals in the trade history.
        {preview.truncated ? " The history had more than the preview reads: it covers the earliest." : ""}
      </p>
      {preview.followers.map((f) => {
        const label = `${nameOf(f.account.platformId)} ${f.account.login}`;
        const newest = f.signals.slice(-SHOWN).reverse();
        return (
          <div key={`${f.account.platformId}:${f.account.login}`} className="grid gap-2">
            <div className="flex flex-wrap items-center gap-2">
              <h4 className="text-sm font-semibold">{label}</h4>
              <Badge tone="success">{formatInteger(f.copies)} copies</Badge>
              <Badge tone={f.skipped > 0 ? "warning" : "neutral"}>{formatInteger(f.skipped)} skipped</Badge>
            </div>
            {newest.length === 0 ? (
              <p className="text-sm text-muted">No source signal in the period.</p>
            ) : (
              <div className="max-h-64 overflow-auto rounded border border-border">
                <table className="w-full text-left text-sm">
                  <caption className="sr-only">
                    {label}: the newest {newest.length} source signals and what the follower would have done
                  </caption>
                  <thead className="sticky top-0 bg-surface">
                    <tr>
                      <th scope="col" className="px-2 py-1 font-medium">
                        Time
                      </th>
                      <th scope="col" className="px-2 py-1 font-medium">
                        Source
                      </th>
                      <th scope="col" className="px-2 py-1 font-medium">
                        Follower
                      </th>
                    </tr>
                  </thead>
                  <tbody>
                    {newest.map((s, i) => (
                      <tr key={i} className="border-t border-border">
                        <td className="px-2 py-1 whitespace-nowrap tabular-nums">{formatDateTime(s.time)}</td>
                        <td className="px-2 py-1">{sourceText(s.source)}</td>
                        <td className={s.outcome === "skip" ? "px-2 py-1 text-muted" : "px-2 py-1"}>{followerText(s)}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            )}
          </div>
        );
      })}
    </section>
  );
}
