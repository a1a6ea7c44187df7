// @vitest-environment node
/**
 * Both blotter modes show one row shape: a deal read back from the trade history store
 * (`rowOfStoredDeal`) is the row the live stream sends for it (`dealRow`), and the screen's filters
 * become a query the history API accepts, under its own names (`historyQuery`).
 */
import { describe, expect, it } from "vitest";
import { dealRow, rowOfStoredDeal } from "@core/schemas/blotterLive";
import { BlotterDealQuerySchema, type BlotterDeal } from "@core/schemas/tradesBlotter";
import type { Deal } from "@core/trading/deal";
import { EMPTY_FILTERS, historyQuery } from "~/features/trades-blotter/blotterFilters";
import { dealColumns, dealTicket, lotsText } from "../../server/modules/tradeHistory/rows.ts";

const PLATFORM = "0b6f6a8e-5d1c-4f5e-9a55-0d1f3c9e2b11";

/** A deal as the history API answers it: the store's columns (./rows.ts) read back. */
function stored(deal: Deal): BlotterDeal {
  const c = dealColumns(deal);
  return {
    key: `${PLATFORM}:${deal.id}`,
    platformId: PLATFORM,
    platformName: "Demo",
    dealId: c.dealId,
    ticket: dealTicket(c.native, c.dealId),
    login: c.login,
    group: "real\\retail",
    time: c.time,
    serverTime: "",
    action: c.action,
    side: c.action === "buy" || c.action === "sell" ? c.action : null,
    entry: c.entry,
    positionId: c.positionId,
    symbol: c.symbol,
    volume: lotsText(c.volume),
    price: c.price,
    sl: c.sl,
    tp: c.tp,
    profit: c.profit,
    commission: c.commission,
    swap: c.swap,
    reason: c.reason,
    comment: c.comment,
    native: c.native,
  };
}

const base: Omit<Deal, "native" | "id"> = {
  login: "100234",
  time: Date.UTC(2026, 10, 21, 9, 30, 15, 123),
  action: "sell",
  entry: "out",
  positionId: "pos-1",
  symbol: "XAUUSD",
  volume: 1_250,
  price: 2301.45,
  profit: -123_456,
  commission: -70,
  swap: 15,
  comment: "closed by dealer",
  reason: "dealer",
};

describe("a stored deal is the live row", () => {
  const deals: Deal[] = [
    { ...base, id: "70001", native: { platform: "MT5", deal: 70001, order: 60001, position: 50001 } },
    { ...base, id: "4001", native: { platform: "MT4", ticket: 4001, cmd: 1, entry: "out" } },
    { ...base, id: "close-9", native: { platform: "MatchTrader", positionId: "b3c1", closeId: "close-9" } },
    { ...base, id: "l-1", action: "balance", entry: null, positionId: null, symbol: null, volume: 0, native: { platform: "MatchTrader", ledgerId: "l-1" } },
  ];
  it.each(deals.map((d) => [d.native.platform, d] as const))("%s", (_platform, deal) => {
    const live = dealRow(PLATFORM, deal, { group: () => "real\\retail", contractSize: () => null });
    expect(rowOfStoredDeal(stored(deal))).toEqual(live);
  });
});

describe("the screen's filters as the history API takes them", () => {
  it("renames them, keeps the days, and the API's schema accepts the result", () => {
    const q = historyQuery({
      filters: {
        ...EMPTY_FILTERS,
        platforms: [PLATFORM],
        login: "100234, 1002*",
        group: "real*",
        symbol: "EUR*",
        side: "balance",
        minLots: "0.1",
        maxLots: "5",
        text: "x",
      },
      from: "2026-11-20",
      to: "2026-11-21",
    });
    const parsed = BlotterDealQuerySchema.safeParse(Object.fromEntries(q));
    expect(parsed.success, JSON.stringify(parsed.error?.issues)).toBe(true);
    expect(parsed.data).toMatchObject({
      platformIds: [PLATFORM],
      login: "100234, 1002*",
      groupMask: "real*",
      symbolMask: "EUR*",
      side: "balance",
      volumeMin: "0.1",
      volumeMax: "5",
      text: "x",
    });
    // Two whole days on the viewer's calendar.
    expect(Date.parse(parsed.data!.to) - Date.parse(parsed.data!.from)).toBeGreaterThanOrEqual(47 * 3_600_000);
    expect([...q.keys()]).not.toContain("symbol");
  });

  it("leaves out what is empty", () => {
    expect([...historyQuery({ filters: EMPTY_FILTERS, from: "2026-11-20", to: "2026-11-20" }).keys()]).toEqual(["from", "to"]);
  });
});
