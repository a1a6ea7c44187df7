/**
 * The one schema: every table of Toolbox, re-exported from the file of the concern that owns it
 * (`tables/`). Tables import each other from their own files, never from here, so there is no
 * cycle; code outside `server/db/` imports tables from here. drizzle-kit reads this file.
 */
export * from "./tables/organizations.ts";
export * from "./tables/identity.ts";
export * from "./tables/audit.ts";
export * from "./tables/platforms.ts";
export * from "./tables/accounts.ts";
export * from "./tables/trades.ts";
export * from "./tables/feedLeases.ts";
export * from "./tables/orderJournal.ts";
export * from "./tables/members.ts";
export * from "./tables/notifications.ts";
export * from "./tables/apiClients.ts";
export * from "./tables/security.ts";
export * from "./tables/customers.ts";
export * from "./tables/simulatedServers.ts";
export * from "./tables/quotesMonitor.ts";
export * from "./tables/tradesCopier.ts";
export * from "./tables/quoteMonitorSettings.ts";
export * from "./tables/dealing.ts";
export * from "./tables/flexibleLeverage.ts";
