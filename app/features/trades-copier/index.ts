/** The Trades Copier's links screen (/apps/trades-copier): copy links and each follower's settings. */
export { TradesCopierLinksPage } from "./TradesCopierLinksPage";
