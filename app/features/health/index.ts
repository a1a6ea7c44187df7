/** Service health: the /health page and the one client of /api/health. */
export { dependencyName, fetchHealth, healthQueryKey, HEALTH_URL, type HealthReport } from "./fetchHealth";
export { HealthPage } from "./HealthPage";
