import { Construction, type LucideIcon } from "lucide-react";
import { EmptyState } from "~/ui/EmptyState";

/** What an area not built yet shows: that it is coming, and what it will hold. */
export function ComingLater({ what, icon = Construction }: { what: string; icon?: LucideIcon }) {
  return <EmptyState icon={icon} title="Coming in a later release" description={what} />;
}
