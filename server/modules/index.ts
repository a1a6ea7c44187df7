import type { FastifyInstance } from "fastify";
import { healthRoutes } from "./health/routes.ts";
import { profileRoutes } from "./profile/routes.ts";
import { twoFactorRoutes } from "./twoFactor/routes.ts";
import { passwordRoutes } from "./password/routes.ts";
import { organizationRoutes } from "./organizations/routes.ts";
import { organizationProfileRoutes } from "./organizations/profileRoutes.ts";
import { tradePlatformRoutes } from "./tradePlatforms/routes.ts";
import { memberRoutes } from "./members/routes.ts";
import { accountRoutes } from "./accounts/routes.ts";
import { customerRoutes } from "./customers/routes.ts";
import { preferenceRoutes } from "./preferences/routes.ts";
import { tradeHistoryRoutes } from "./tradeHistory/routes.ts";
import { blotterStreamRoutes } from "./tradesBlotter/streamRoutes.ts";
import { notificationRoutes } from "./notifications/routes.ts";
import { apiClientRoutes } from "./apiClients/routes.ts";
import { logRoutes } from "./logs/routes.ts";
import { overviewRoutes } from "./overview/routes.ts";
import { simulatorRoutes } from "./tradePlatforms/simulatorRoutes.ts";
import { securityPolicyRoutes } from "./security/routes.ts";
import { quotesMonitorRoutes } from "./quotesMonitor/routes.ts";
import { tradesCopierRoutes } from "./tradesCopier/routes.ts";
import { tradesCopierPreviewRoutes } from "./tradesCopier/previewRoutes.ts";
import { tradesCopierStatusRoutes } from "./tradesCopier/statusRoutes.ts";
import { tradesCopierResyncRoutes } from "./tradesCopier/resyncRoutes.ts";
import { pluginRoutes } from "./plugins/routes.ts";
import { dealingRoutes } from "./dealing/routes.ts";
import { serverConfigRoutes } from "./serverConfig/routes.ts";

/**
 * Every /api module registers here; each owns its routes, schemas and repository. The API guard
 * is already registered on this scope (server/http/app.ts), so it sees every route (each declares
 * its access in `config`).
 */
export async function registerApi(api: FastifyInstance) {
  await api.register(healthRoutes);
  await api.register(profileRoutes);
  await api.register(twoFactorRoutes);
  await api.register(passwordRoutes);
  await api.register(organizationRoutes);
  await api.register(organizationProfileRoutes);
  await api.register(tradePlatformRoutes);
  await api.register(memberRoutes);
  await api.register(accountRoutes);
  await api.register(customerRoutes);
  await api.register(preferenceRoutes);
  await api.register(tradeHistoryRoutes);
  await api.register(blotterStreamRoutes);
  await api.register(notificationRoutes);
  await api.register(apiClientRoutes);
  await api.register(simulatorRoutes);
  await api.register(securityPolicyRoutes);
  await api.register(logRoutes);
  await api.register(overviewRoutes);
  await api.register(quotesMonitorRoutes);
  await api.register(tradesCopierRoutes);
  await api.register(tradesCopierPreviewRoutes);
  await api.register(tradesCopierStatusRoutes);
  await api.register(tradesCopierResyncRoutes);
  await api.register(pluginRoutes);
  await api.register(dealingRoutes);
  await api.register(serverConfigRoutes);

  // Unknown /api paths answer 404 JSON — without this the pages' catch-all would render HTML.
  const notFound = { config: { auth: false as const }, schema: { hide: true } };
  api.all("/", notFound, (_request, reply) => reply.callNotFound());
  api.all("/*", notFound, (_request, reply) => reply.callNotFound());
}
