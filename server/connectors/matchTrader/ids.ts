/**
 * Toolbox's ids for Match-Trader records. Positions, closings and ledgers have UUIDs; a
 * position's entry deal, which Match-Trader does not report as such, is "<position uuid>:in".
 */
export const matchTraderIds = {
  entryDeal: (positionId: string) => `${positionId}:in`,
};
