/**
 * The execution profile a simulated server obeys (docs/dealing.md "On simulated servers"): set by
 * Toolbox's dealing scheduler (server/modules/dealing/scheduler.ts) on the running engine. While
 * one is set, a market order waits the profile's execution delay (./dealing.ts `withDealingDelay`,
 * around the session's order), then is refused if the quote is older than the stale-quote
 * threshold or the volume above the maximum per order, its allowed deviation is capped by the
 * profile's, and it fills at the quote widened by the symbol's markup (bid down, ask up).
 */
import { markedUp, markupFor, type ExecutionProfile } from "../../../../core/dealing/index.ts";
import { formatLots, VOLUME_PER_LOT, type OrderRequest, type Quote, type TradeSymbol } from "../../../../core/trading/index.ts";
import type { Clock } from "../../clock.ts";
import { connectorErrors } from "../../errors.ts";
import type { EngineContext } from "./context.ts";

/**
 * Puts `profile` in force on the engine (null: none, plain execution). It is engine state (in the
 * context, so a saved server's snapshot keeps it); callers go through `SimulatedEngine.setDealingProfile`,
 * a recorded call, so a restored server replays its fills under the profile they had.
 */
export function setDealingProfile(ctx: EngineContext, profile: ExecutionProfile | null): void {
  ctx.dealingProfile = profile === null ? null : structuredClone(profile);
}

export function dealingProfileOf(ctx: EngineContext): ExecutionProfile | null {
  return ctx.dealingProfile ?? null;
}

/**
 * The quote an order of `request` fills at under the profile in force (the feed's own without
 * one), and the deviation it may have. Throws the server's refusal for a stale quote or an
 * oversized order.
 */
export function dealtQuote(
  ctx: EngineContext,
  symbol: TradeSymbol,
  request: Pick<OrderRequest, "volume" | "maxDeviationPoints">,
  quote: Quote,
): { quote: Quote; maxDeviationPoints: number | undefined } {
  const profile = ctx.dealingProfile;
  if (!profile) return { quote, maxDeviationPoints: request.maxDeviationPoints };
  if (profile.staleQuoteMs !== null && ctx.clock.now() - quote.time > profile.staleQuoteMs)
    throw connectorErrors.rejected(
      "priceChanged",
      `Off quotes: the last ${symbol.name} price is ${Math.round((ctx.clock.now() - quote.time) / 1000)} s old, more than the ${profile.staleQuoteMs} ms execution profile "${profile.name}" accepts.`,
    );
  if (profile.maxVolumeLots !== null && request.volume > Math.round(profile.maxVolumeLots * VOLUME_PER_LOT))
    throw connectorErrors.rejected(
      "invalidVolume",
      `${formatLots(request.volume)} lot is more than the ${profile.maxVolumeLots} lot per order execution profile "${profile.name}" allows.`,
    );
  const markup = markupFor(profile, { name: symbol.name, path: symbol.path });
  const widened = markup.bidPoints === 0 && markup.askPoints === 0 ? quote : { ...quote, ...markedUp(quote, markup, symbol.digits) };
  const limits = [request.maxDeviationPoints, profile.maxDeviationPoints ?? undefined].filter((x): x is number => x !== undefined);
  return { quote: widened, maxDeviationPoints: limits.length === 0 ? undefined : Math.min(...limits) };
}

/** Runs a market order after the execution delay of the profile in force (at once without one). */
export async function withDealingDelay<T>(ctx: EngineContext, clock: Clock, run: () => Promise<T>): Promise<T> {
  const delay = ctx.dealingProfile?.executionDelayMs ?? 0;
  if (delay > 0) await new Promise<void>((resolve) => clock.setTimeout(resolve, delay));
  return run();
}
