/**
 * Limits and defaults of a trade platform's settings, shared by the connect/edit form
 * (app/features/trade-platforms/form), the API (server/modules/tradePlatforms/schemas.ts) and
 * the simulated servers.
 */
export const PLATFORM_NAME_MAX = 100;

export const SIMULATED_ACCOUNTS_DEFAULT = 300;
export const SIMULATED_ACCOUNTS_MAX = 100_000;
/** Simulated trading actions per second. */
export const SIMULATED_TRADE_RATE_DEFAULT = 3;
export const SIMULATED_TRADE_RATE_MAX = 10_000;
export const SIMULATED_SEED_MAX = 0xffffffff;
