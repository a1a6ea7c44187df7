/** What can be notified, how severe, and by which channels: plain constants the API and the app share (schemas: ./schemas/notifications.ts). */
export const NOTIFICATION_SEVERITIES = ["info", "warning", "error"] as const;
export type NotificationSeverity = (typeof NOTIFICATION_SEVERITIES)[number];

/** What can be notified; each area publishes its event on the bus once, every channel can carry it. */
export const NOTIFICATION_TYPES = [
  "platformDisconnected",
  "platformReconnected",
  "copierFailure",
  "copierDivergence",
  "leverageChanged",
  "largeBalanceOperation",
  "memberJoined",
  "memberLeft",
  "securitySettingsChanged",
  "memberTwoFactorReset",
  "channelDisabled",
  "quoteAlert",
  "quoteAlertCleared",
  "dealingProfileSwitched",
] as const;
export type NotificationType = (typeof NOTIFICATION_TYPES)[number];

export const NOTIFICATION_TYPE_LABELS: Record<NotificationType, string> = {
  platformDisconnected: "Platform disconnected",
  platformReconnected: "Platform reconnected",
  copierFailure: "Copier failure",
  copierDivergence: "Copier divergence",
  leverageChanged: "Leverage changed by a plugin",
  largeBalanceOperation: "Large balance operation",
  memberJoined: "Member joined",
  memberLeft: "Member left",
  securitySettingsChanged: "Security settings changed",
  memberTwoFactorReset: "Member's two-factor sign-in reset",
  channelDisabled: "Notification channel disabled",
  quoteAlert: "Quotes alert",
  quoteAlertCleared: "Quotes alert cleared",
  dealingProfileSwitched: "Dealing profile switched",
};

export const DEFAULT_SEVERITY: Record<NotificationType, NotificationSeverity> = {
  platformDisconnected: "error",
  platformReconnected: "info",
  copierFailure: "error",
  copierDivergence: "warning",
  leverageChanged: "info",
  largeBalanceOperation: "warning",
  memberJoined: "info",
  memberLeft: "info",
  securitySettingsChanged: "warning",
  memberTwoFactorReset: "warning",
  channelDisabled: "error",
  quoteAlert: "warning",
  quoteAlertCleared: "info",
  dealingProfileSwitched: "info",
};

export const CHANNEL_KINDS = ["email", "telegram", "webhook"] as const;
export type ChannelKind = (typeof CHANNEL_KINDS)[number];
