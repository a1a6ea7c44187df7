/**
 * What other features use of trade platforms: how a platform is shown (type badge, enable flag,
 * connection state, server clock) and its live state. The shell's sidebar imports this on every
 * page, so only light modules belong here: the forms, settings and apps pages stay behind their
 * routes (app/routes/…), which import them directly.
 */
export { ConnectionStateIndicator, CONNECTION_STATE_LABELS } from "./ConnectionStateIndicator";
export { EnabledState } from "./EnabledState";
export { PlatformTypeBadge } from "./PlatformTypeBadge";
export { formatServerTime, ServerClock, useServerTime } from "./ServerClock";
export { PLATFORM_TYPE_LABELS, PLATFORM_TYPE_SHORT, platformSettingsPath } from "./platformTypes";
export { useLiveStateStore, type PlatformLiveState } from "./live/liveStateStore";
export { openLiveStream, type LiveMessage, type StreamStatus } from "./live/liveStream";
export { displayState, useLiveStateStream, usePlatformLiveState, type PlatformDisplayState, type PlatformLiveView } from "./live/usePlatformLiveState";
