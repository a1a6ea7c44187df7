/**
 * Toolbox's ids for Match-Trader records. Positions, closings and ledgers have UUIDs; a
 * position's entry deal, which Match-Trader does not report as such, is "<position uuid>:in".
 */
export const matchTraderIds = {
  entryDeal: (positionId: string) => `${positionId}:in`,
};

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: string): boolean {
  return UUID.test(value);
}
