/** The Quotes Monitor screen (/apps/quotes-monitor): every symbol of every platform live, spreads and gaps, alerts. */
export { QuotesMonitorPage } from "./QuotesMonitorPage";
