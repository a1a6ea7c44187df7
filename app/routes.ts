import { type RouteConfig, index, prefix, route } from "@react-router/dev/routes";

/**
 * The route table of docs/requirements.md#r-routes. Every module loads lazily (React Router splits per route).
 * Raw paths (/health, /silent-renew, /auth-callback) skip the sign-in guard: see app/auth/guard.ts.
 * Loaders only validate the URL; data loads in the browser (docs/decisions/0023-data-loads-in-the-browser.md).
 */
export default [
  index("routes/home.tsx"),
  route("logs", "routes/logs.tsx", [index("routes/logs/audit.tsx"), route("journal", "routes/logs/journal.tsx")]),
  route("debug", "routes/debug.tsx"),
  route("inbox", "routes/inbox.tsx"),
  route("users", "routes/users.tsx"),
  route("customers", "routes/customers.tsx"),
  route("index-sample", "routes/index-sample.tsx"),
  route("health", "routes/health.tsx"),
  route("silent-renew", "routes/silent-renew.tsx"),
  route("silent-renew.html", "routes/silent-renew.tsx", { id: "routes/silent-renew.html" }),
  route("auth-callback", "routes/auth-callback.tsx"),
  route("auth-callback.html", "routes/auth-callback.tsx", { id: "routes/auth-callback.html" }),
  route("logout-callback", "routes/logout-callback.tsx"),
  ...prefix("tradePlatforms", [
    route("new", "routes/tradePlatforms.new.tsx"),
    route("AssignApplicationModal", "routes/tradePlatforms.AssignApplicationModal.tsx"),
    route("tradePlatformDeletedSuccessfully", "routes/tradePlatforms.tradePlatformDeletedSuccessfully.tsx"),
    route(":tradePlatformType/:tradePlatformId/settings", "routes/platform-settings/layout.tsx", [
      index("routes/platform-settings/general.tsx"),
      route("apps", "routes/platform-settings/apps.tsx"),
      route("dealing", "routes/platform-settings/dealing.tsx"),
      route("plugins", "routes/platform-settings/plugins.tsx", [
        index("routes/platform-settings/plugins.index.tsx"),
        // "{product}.MT4Plugin.FlexibleLeverage" / "{product}.MT5Plugin.FlexibleLeverage":
        // React Router params are whole segments, so the loader validates the suffix.
        route(":pluginId/:pluginVersion/:pluginEditor", "routes/platform-settings/plugins.flexible-leverage.tsx"),
      ]),
      route("MT4MT5editor", "routes/platform-settings/MT4MT5editor.tsx"),
      route("MatchTraderEditor", "routes/platform-settings/MatchTraderEditor.tsx"),
    ]),
  ]),
  ...prefix("apps", [
    route("trades-blotter", "routes/apps.trades-blotter.tsx"),
    route("quotes-monitor", "routes/apps.quotes-monitor.tsx"),
    route("trades-copier", "routes/trades-copier/layout.tsx", [index("routes/trades-copier/index.tsx"), route("status", "routes/trades-copier/status.tsx")]),
  ]),
  route("settings", "routes/settings/layout.tsx", [
    index("routes/settings/index.tsx"),
    route("members", "routes/settings/members.tsx"),
    route("security", "routes/settings/security.tsx"),
    route("notifications", "routes/settings/notifications.tsx"),
    route("organizations", "routes/settings/organizations.tsx"),
  ]),
  route("*", "routes/not-found.tsx"),
] satisfies RouteConfig;
