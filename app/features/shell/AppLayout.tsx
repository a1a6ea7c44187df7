import { Fragment, type ReactNode } from "react";
import { useDisplayPreferenceSync } from "~/profile/displayPreference";
import { useDisplayStore } from "~/ui/format";
import { useNavigation } from "react-router";
import { MobileNav } from "./MobileNav";
import { RouteAnnouncer } from "./RouteAnnouncer";
import { SidebarContent } from "./SidebarContent";
import { SkipLink } from "./SkipLink";

export const MAIN_CONTENT_ID = "main-content";

/** The signed-in layout: sidebar on wide screens, drawer on phones, the page in <main>. */
export function AppLayout({ children }: { children: ReactNode }) {
  const busy = useNavigation().state === "loading";
  useDisplayPreferenceSync();
  // Grids format through currentFormat(): a new display preference draws the page again.
  const display = useDisplayStore((s) => `${s.formatter.locale}|${s.formatter.timeZone}`);
  return (
    <div className="min-h-dvh">
      <SkipLink targetId={MAIN_CONTENT_ID} />
      <aside className="fixed inset-y-0 left-0 z-30 hidden w-64 border-r border-border bg-surface lg:block" aria-label="Sidebar">
        <SidebarContent />
      </aside>
      <MobileNav />
      <div className="lg:pl-64">
        <main id={MAIN_CONTENT_ID} tabIndex={-1} className="min-h-[calc(100dvh-3.5rem)] outline-none lg:min-h-dvh" aria-busy={busy || undefined}>
          <Fragment key={display}>{children}</Fragment>
        </main>
      </div>
      <RouteAnnouncer />
    </div>
  );
}
