/**
 * Toolbox's ids for MT4 records. MT4 knows only tickets: a trade's opening and its closing share
 * the ticket, so the two deals Toolbox shows for it are "<ticket>:in" and "<ticket>:out"; a
 * balance or credit record is its ticket alone.
 */
export const mt4Ids = {
  position: (ticket: number) => String(ticket),
  entryDeal: (ticket: number) => `${ticket}:in`,
  exitDeal: (ticket: number) => `${ticket}:out`,
  moneyDeal: (ticket: number) => String(ticket),
};

const FROM = /^from #(\d+)/;
const TO = /^to #(\d+)/;

/** The ticket a re-issued trade continues ("from #123"), if any. */
export function reissuedFrom(comment: string): number | null {
  const match = FROM.exec(comment);
  return match ? Number(match[1]) : null;
}

/** The ticket that continues a partly closed trade ("to #124"), if any. */
export function reissuedTo(comment: string): number | null {
  const match = TO.exec(comment);
  return match ? Number(match[1]) : null;
}
