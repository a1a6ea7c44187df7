/** The Trades Copier's screens: the links (/apps/trades-copier) with each follower's settings, and the status (/apps/trades-copier/status). */
export { TradesCopierLinksPage } from "./TradesCopierLinksPage";
export { CopierStatusPage } from "./status/CopierStatusPage";
export { formatMs } from "./status/statusApi";
