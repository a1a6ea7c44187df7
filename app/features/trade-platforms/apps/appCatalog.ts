import { Activity, Copy, Gauge, type LucideIcon } from "lucide-react";
import type { Module } from "@core/access";
import type { PlatformApp, PlatformAppAssignment } from "../platformApi";

/** The applications a platform can run, with where each is opened. */
export interface AppInfo {
  app: PlatformApp;
  name: string;
  description: string;
  path: string;
  icon: LucideIcon;
  module: Module;
}

export const APPS: readonly AppInfo[] = [
  {
    app: "tradesBlotter",
    name: "Trades Blotter",
    description: "Every trade and deal on the platform, live or for a date range.",
    path: "/apps/trades-blotter",
    icon: Activity,
    module: "tradesBlotter",
  },
  {
    app: "tradesCopier",
    name: "Trades Copier",
    description: "Copies trades from source accounts to followers, across platforms.",
    path: "/apps/trades-copier",
    icon: Copy,
    module: "tradesCopier",
  },
  {
    app: "quotesMonitor",
    name: "Quotes Monitor",
    description: "Every symbol live: spreads, gaps in the feed and prices drifting apart, with alerts.",
    path: "/apps/quotes-monitor",
    icon: Gauge,
    module: "quotesMonitor",
  },
];

export const appName = (app: PlatformApp) => APPS.find((a) => a.app === app)?.name ?? app;

/** Every known app with its assignment; an app never assigned reads as not enabled. */
export function withAllApps(assigned: readonly PlatformAppAssignment[]): PlatformAppAssignment[] {
  return APPS.map(({ app }) => ({ app, enabled: assigned.find((a) => a.app === app)?.enabled ?? false }));
}
