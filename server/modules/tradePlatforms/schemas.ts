/**
 * The trade platform routes' schemas. The contract lives once in core/schemas/platform.ts (the
 * connect/edit form and the app's types use the same schemas); this module only names it for the
 * routes and the service.
 */
export {
  AssignApplicationResultSchema,
  AssignApplicationSchema,
  CONNECTION_STATES,
  ConnectionChangeSchema,
  CreatePlatformSchema,
  DeletePlatformSchema,
  NewConnectionSchema,
  PlatformAppSchema,
  PlatformAppsSchema,
  PlatformDetailSchema,
  PlatformIdParams,
  PublicConnectionSchema,
  SetPlatformAppsSchema,
  TestConnectionResultSchema,
  TestConnectionSchema,
  TradePlatformListSchema,
  TradePlatformSchema,
  UpdatePlatformSchema,
  type CreatePlatformBody,
  type PlatformDetail,
  type TestConnectionBody,
  type UpdatePlatformBody,
} from "../../../core/schemas/platform.ts";
export { TRADE_PLATFORM_TYPES } from "../../../core/trading/platform.ts";
