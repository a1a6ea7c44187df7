import { formatMoney, formatPercent } from "~/ui/grid";
import { MarginStateBadge } from "../AccountBadges";
import type { AccountDetail } from "../accountTypes";

/** The money figures a dealer reads first, as tiles. */
export function AccountFigures({ account }: { account: AccountDetail }) {
  const tiles = [
    { label: "Balance", value: formatMoney(account.balance), strong: true },
    { label: "Credit", value: formatMoney(account.credit) },
    { label: "Equity", value: formatMoney(account.equity), strong: true },
    { label: "Margin", value: formatMoney(account.margin) },
    { label: "Free margin", value: formatMoney(account.freeMargin) },
    { label: "Margin level", value: formatPercent(account.marginLevel), badge: <MarginStateBadge state={account.marginState} /> },
  ];
  return (
    <dl className="grid grid-cols-2 gap-px overflow-hidden rounded-lg border border-border bg-border sm:grid-cols-3">
      {tiles.map((t) => (
        <div key={t.label} className="grid gap-1 bg-surface p-3">
          <dt className="flex items-center justify-between gap-2 text-xs text-muted">
            {t.label}
            {t.badge}
          </dt>
          <dd className={t.strong ? "text-lg font-semibold tabular-nums" : "text-base tabular-nums"}>
            {t.value}
            <span className="ml-1 text-xs font-normal text-muted">{t.label === "Margin level" ? "" : account.currency}</span>
          </dd>
        </div>
      ))}
    </dl>
  );
}
