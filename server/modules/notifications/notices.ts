/**
 * What a notice is, and the notice each watched bus event makes (its type, words, link and dedupe
 * key). Platform connection changes go through the flap filter first (./flapFilter.ts), so they
 * have their own function here. docs/notifications.md.
 */
import type { NotificationSeverity, NotificationType } from "../../../core/schemas/notifications.ts";
import { moneyFromDecimal } from "../../../core/trading/index.ts";
import type { Db } from "../../db/client.ts";
import { ORGANIZATION_WIDE, type BusMessage, type DomainEvent } from "../../events/types.ts";
import { createFormatter } from "../../../core/format.ts";
import { accountCurrencyOf, platformById, platformOf } from "./centerRepository.ts";
import { getSettings } from "./repository.ts";

export interface Notice {
  organizationId: string;
  type: NotificationType;
  severity?: NotificationSeverity;
  title: string;
  body: string;
  /** App path of the subject, e.g. /tradePlatforms/MT5/<id>/settings. */
  link: string | null;
  /** Same key, same notice: written once per member. */
  dedupeKey: string;
  /** Only to the inbox (a channel's own trouble is not sent through channels). */
  inboxOnly?: boolean;
  /** Overrides the rule's members (e.g. administrators for channel trouble). */
  members?: "admins";
}

/** The bus events the center follows. */
export const WATCHED = [
  "platformState",
  "platformRemoved",
  "balanceOperationDone",
  "copierFailure",
  "copierDivergence",
  "leverageChanged",
  "memberJoined",
  "memberLeft",
  "memberTwoFactorReset",
  "securitySettingsChanged",
  "quoteAlert",
  "dealingProfileSwitched",
] as const;

export type WatchedMessage = BusMessage<Extract<DomainEvent, { type: (typeof WATCHED)[number] }>>;

/** Events that make a notice by themselves (platform state goes through the flap filter). */
type NoticeEvent = Extract<DomainEvent, { type: Exclude<(typeof WATCHED)[number], "platformState" | "platformRemoved"> }>;

/** Notices are read by many members, in e-mails and chats too: one fixed form for their figures ("1,234.50"). */
const NOTICE_FORMAT = createFormatter({ locale: "en-GB", timeZone: "UTC" });

const platformIn = (db: Db, organizationId: string, platformId: string) =>
  platformId === ORGANIZATION_WIDE ? Promise.resolve(undefined) : platformOf(db, organizationId, platformId);

/** The notice of one event, or none (e.g. a balance operation under the organization's threshold). */
export async function noticeOfEvent(db: Db, seq: number, event: NoticeEvent): Promise<Notice | undefined> {
  switch (event.type) {
    case "balanceOperationDone": {
      const { largeBalanceThreshold } = await getSettings(db, event.organizationId);
      if (largeBalanceThreshold === null || moneyFromDecimal(event.amount) < moneyFromDecimal(largeBalanceThreshold)) return undefined;
      const platform = await platformIn(db, event.organizationId, event.platformId);
      // Figures through core/format.ts, with the account's currency (the threshold is in it too).
      const currency = await accountCurrencyOf(db, event.organizationId, event.platformId, event.login);
      const amount = (value: string) => `${NOTICE_FORMAT.money(value)}${currency ? ` ${currency}` : ""}`;
      return {
        organizationId: event.organizationId,
        type: "largeBalanceOperation",
        title: `Large ${words(event.operationType)}: ${amount(event.amount)} on ${event.login}`,
        body: `${event.actorName ?? "A member"} made a ${words(event.operationType)} of ${amount(event.amount)} on account ${event.login} of ${platform?.name ?? "a platform"} (threshold ${amount(largeBalanceThreshold)}).`,
        link: `/users?platform=${event.platformId}&login=${encodeURIComponent(event.login)}`,
        dedupeKey: `largeBalanceOperation:${event.operationId}`,
      };
    }
    case "copierFailure":
    case "copierDivergence": {
      const platform = await platformIn(db, event.organizationId, event.platformId);
      return {
        organizationId: event.organizationId,
        type: event.type,
        title: `${event.type === "copierFailure" ? "Copier failure" : "Copier divergence"} on ${platform?.name ?? "a platform"}`,
        body: event.message,
        link: "/apps/trades-copier/status",
        dedupeKey: `${event.type}:${event.linkId}:${seq}`,
      };
    }
    case "dealingProfileSwitched": {
      const platform = await platformIn(db, event.organizationId, event.platformId);
      return {
        organizationId: event.organizationId,
        type: "dealingProfileSwitched",
        title: `Dealing profile "${event.profile}" in force on ${platform?.name ?? "a platform"}`,
        body: `${platform?.name ?? "A platform"} switched ${event.from === null ? "" : `from "${event.from}" `}to the execution profile "${event.profile}" (${event.reason}).`,
        link: platform ? `/tradePlatforms/${platform.type}/${event.platformId}/settings/dealing` : null,
        dedupeKey: `dealingProfileSwitched:${event.platformId}:${event.at}`,
      };
    }
    case "leverageChanged": {
      const platform = await platformIn(db, event.organizationId, event.platformId);
      return {
        organizationId: event.organizationId,
        type: "leverageChanged",
        title: `Leverage of ${event.login} changed to 1:${event.to}`,
        body: `${event.plugin} changed the leverage of account ${event.login} on ${platform?.name ?? "a platform"} from 1:${event.from} to 1:${event.to}${event.reason ? ` (${event.reason})` : ""}.`,
        link: platform ? `/tradePlatforms/${platform.type}/${event.platformId}/settings/plugins` : null,
        dedupeKey: `leverageChanged:${seq}`,
      };
    }
    case "memberJoined":
    case "memberLeft":
      return {
        organizationId: event.organizationId,
        type: event.type,
        title: `${event.name ?? "A member"} ${event.type === "memberJoined" ? "joined" : "left"} the organization`,
        body: `${event.name ?? event.sub} ${event.type === "memberJoined" ? "is now a member" : "is no longer a member"}.`,
        link: "/settings/members",
        dedupeKey: `${event.type}:${event.sub}:${seq}`,
      };
    case "memberTwoFactorReset":
      // Always the administrators: the person's second factor is a security matter, whoever reset it.
      return {
        organizationId: event.organizationId,
        type: "memberTwoFactorReset",
        title: `${event.name ?? "A member"}'s two-factor sign-in was reset`,
        body: `${event.actorName ?? "An administrator"} of ${event.byOrganizationName} reset the two-factor sign-in of ${event.name ?? event.sub}. They must set up a new device at their next sign-in.`,
        link: "/settings/members",
        dedupeKey: `memberTwoFactorReset:${event.resetId}`,
        members: "admins",
      };
    case "quoteAlert": {
      const platform = await platformIn(db, event.organizationId, event.platformId);
      const raised = event.state === "raised";
      return {
        organizationId: event.organizationId,
        type: raised ? "quoteAlert" : "quoteAlertCleared",
        severity: raised ? event.severity : "info",
        title: `${raised ? "" : "Cleared: "}${event.ruleName}: ${event.symbol} on ${platform?.name ?? "a platform"}`,
        body: event.message,
        link: `/apps/quotes-monitor?platform=${event.platformId}&symbol=${encodeURIComponent(event.symbol)}`,
        dedupeKey: `quoteAlert:${event.ruleId}:${event.platformId}${event.otherPlatformId ? `+${event.otherPlatformId}` : ""}:${event.symbol}:${event.episode}:${event.state}`,
      };
    }
    case "securitySettingsChanged":
      return {
        organizationId: event.organizationId,
        type: "securitySettingsChanged",
        title: "Security settings changed",
        body: `${event.actorName ?? "A member"} changed the security settings: ${event.summary}`,
        link: "/settings/security",
        dedupeKey: `securitySettingsChanged:${seq}`,
      };
  }
}

/** The notice of a settled connection change (after the flap filter); none for a platform gone meanwhile. */
export async function noticeOfTransition(
  db: Db,
  platformId: string,
  kind: "disconnected" | "reconnected",
  reason: string | null,
  seq: number,
): Promise<Notice | undefined> {
  const platform = await platformById(db, platformId);
  if (!platform) return undefined;
  const down = kind === "disconnected";
  return {
    organizationId: platform.organizationId,
    type: down ? "platformDisconnected" : "platformReconnected",
    title: `${platform.name} ${down ? "disconnected" : "reconnected"}`,
    body: down ? `Toolbox lost its connection to ${platform.name}${reason ? `: ${reason}` : "."}` : `Toolbox is connected to ${platform.name} again.`,
    link: `/tradePlatforms/${platform.type}/${platformId}/settings`,
    dedupeKey: `${kind}:${platformId}:${seq}`,
  };
}

function words(operationType: string): string {
  return operationType.replace(/([A-Z])/g, " $1").toLowerCase();
}
