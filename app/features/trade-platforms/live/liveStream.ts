/**
 * The SSE-over-fetch client lives in app/api/liveStream.ts, shared with the Trades Blotter's
 * stream worker (which must not load this feature's index and its React modules).
 */
export { openLiveStream, type LiveMessage, type LiveStreamOptions, type StreamStatus } from "~/api/liveStream";
