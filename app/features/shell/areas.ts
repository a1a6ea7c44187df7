import { Activity, Contact, Copy, Gauge, Inbox, LayoutDashboard, ScrollText, Settings, Users, type LucideIcon } from "lucide-react";
import type { Module } from "@core/access";

export interface Area {
  label: string;
  to: string;
  icon: LucideIcon;
  /** Shown only to people who may read this module (the API would refuse the rest). */
  module?: Module;
  /** Active only on the exact path (the overview at "/"). */
  end?: boolean;
}

/** The sidebar's areas, grouped as the back-office team thinks of them. */
export const AREA_GROUPS: readonly { label?: string; areas: readonly Area[] }[] = [
  { areas: [{ label: "Overview", to: "/", icon: LayoutDashboard, end: true }] },
  {
    label: "Apps",
    areas: [
      { label: "Trades Blotter", to: "/apps/trades-blotter", icon: Activity, module: "tradesBlotter" },
      { label: "Trades Copier", to: "/apps/trades-copier", icon: Copy, module: "tradesCopier" },
      { label: "Quotes Monitor", to: "/apps/quotes-monitor", icon: Gauge, module: "quotesMonitor" },
    ],
  },
  {
    label: "Back office",
    areas: [
      { label: "Customers", to: "/customers", icon: Contact, module: "customers" },
      { label: "Users", to: "/users", icon: Users, module: "users" },
      { label: "Inbox", to: "/inbox", icon: Inbox, module: "inbox" },
      { label: "Logs", to: "/logs", icon: ScrollText, module: "logs" },
    ],
  },
  // Every member reaches settings: the organizations tab (create, switch) is theirs.
  { label: "Administration", areas: [{ label: "Settings", to: "/settings", icon: Settings }] },
];
