/**
 * What other features use of the Trades Copier: how its latency is written (the overview's copier
 * tile). Only light modules belong here: the overview on `/` imports this index, so a page
 * exported from it would bring its grids (AG Grid) into the first screen. The screens — the links
 * (/apps/trades-copier, `./TradesCopierLinksPage`) and the status (/apps/trades-copier/status,
 * `./status/CopierStatusPage`) — stay behind their routes (app/routes/trades-copier/…), which
 * import them directly.
 */
export { formatMs } from "./status/statusApi";
