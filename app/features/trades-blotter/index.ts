/** The Trades Blotter screen (/apps/trades-blotter): live and historical trades, filters, totals, exposure, export. */
export { TradesBlotterPage } from "./TradesBlotterPage";
