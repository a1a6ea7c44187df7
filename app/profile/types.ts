import type { Claim } from "@core/access";
import type { TradePlatformType } from "@core/routeValidation";

export type { Claim, TradePlatformType };

/** GET /api/organizations item. */
export interface Organization {
  id: string;
  name: string;
  /** Its default time zone (IANA): times show in it for a member who chose no zone of their own. Absent in lists kept from before. */
  timeZone?: string;
  createdAt: string;
  /** The caller administers it (holds organization:admin for its id). */
  isAdmin: boolean;
}

/** GET /api/tradePlatforms item: platforms of every organization the caller belongs to. */
export interface TradePlatform {
  id: string;
  organizationId: string;
  type: TradePlatformType;
  name: string;
  enable: boolean;
}

/** GET /api/profile/preflight: held as the profile's appConfig (not persisted). */
export interface PreflightAnswer {
  user: { sub: string; email: string | null; name: string | null };
  organizationCount: number;
  /** Set when this sign-in created the person's first organization. */
  createdOrganizationId?: string;
  serverTime: string;
}
