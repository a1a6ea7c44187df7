/** The copier status's API paths, query keys and refresh intervals (server/modules/tradesCopier/statusRoutes.ts). */
import type { ResyncPlan } from "@core/schemas/copierStatus";

export type {
  CopierDivergence,
  CopierStatus,
  CopyEvent,
  CopyEvents,
  FollowerDivergence,
  FollowerStatus,
  LinkStatus,
  ResyncPlan,
} from "@core/schemas/copierStatus";

export const STATUS_PATH = "/api/tradesCopier/status";
export const EVENTS_PATH = "/api/tradesCopier/status/events";
export const DIVERGENCE_PATH = "/api/tradesCopier/status/divergence";
export const FOLLOWERS_GRID_STATE_KEY = "tradesCopier.status.followers.columns";
export const EVENTS_GRID_STATE_KEY = "tradesCopier.status.events.columns";

/** The ledger's figures are read again this often while the page is in view (TanStack Query pauses in a hidden tab). */
export const STATUS_REFRESH_MS = 3_000;
/** Divergence reads every follower's open positions from the platforms: less often. */
export const DIVERGENCE_REFRESH_MS = 10_000;
export const EVENTS_PAGE = 50;

export const statusKey = (organizationId: string | null) => ["tradesCopier", organizationId, "status"];
export const divergenceKey = (organizationId: string | null) => ["tradesCopier", organizationId, "divergence"];
export const eventsKey = (organizationId: string | null, linkId: string, state: string) => ["tradesCopier", organizationId, "events", linkId, state];

/** The engine's resync route for one follower (GET: the plan; POST: do it). */
export const resyncPath = (linkId: string, platformId: string, login: string) =>
  `/api/tradesCopier/links/${encodeURIComponent(linkId)}/followers/${encodeURIComponent(platformId)}/${encodeURIComponent(login)}/resync`;

export type ResyncAction = ResyncPlan["actions"][number];

/** Latency in ms as the page writes it: whole ms from 10 up, one decimal below. */
export function formatMs(value: number | null | undefined): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return "—";
  return `${value >= 10 ? Math.round(value).toLocaleString("en-US") : value.toFixed(1)} ms`;
}
