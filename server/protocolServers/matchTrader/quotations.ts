/**
 * The local Match-Trader server's quotations stream, as the vendor's Broker API serves it
 * (QuotationsServiceExternal.getQuotationsWithMarkupStream, quotations.proto): the token in the
 * `authorization` metadata, the system, a known group and the instruments named (at least one),
 * one quote a message, at most one per instrument per `throttlingMs` when above 0 (the latest),
 * and the stream ended after 15 minutes without data. The simulated groups have no markup.
 */
import * as grpc from "@grpc/grpc-js";
import type { Clock, TimerHandle } from "../../connectors/clock.ts";
import type { PlatformCodec } from "../../connectors/wire/codec.ts";
import type { MatchTraderNative, MtQuote } from "../../connectors/matchTrader/native.ts";
import { quotationToPb, QuotationsService, type QuotationsRequest } from "../../connectors/matchTraderApi/quotes.ts";
import type { SimulatedServer } from "../../connectors/simulated/server.ts";

export interface QuotationsDeps {
  simulated: SimulatedServer;
  codec: PlatformCodec<MatchTraderNative>;
  clock: Clock;
  systemUuid: string;
  idleMs: number;
  /** The refusal of a call (refused connections, a wrong token), or null. */
  refuse: (metadata: grpc.Metadata) => grpc.ServiceError | null;
}

function failure(code: grpc.status, details: string): grpc.ServiceError {
  return Object.assign(new Error(details), { code, details, metadata: new grpc.Metadata() });
}

/** A quotations request as it reached the server (what the client sent, before any refusal). */
export type QuotationsAsked = Readonly<Partial<QuotationsRequest>>;

/**
 * Adds the service to `server`; answers the way to end every open quotations stream (a dropped
 * connection), and the last 100 requests received (tests read the group a connector asked for).
 */
export function serveQuotations(server: grpc.Server, deps: QuotationsDeps): { dropAll(): void; readonly open: number; readonly requests: QuotationsAsked[] } {
  const ends = new Set<(error: grpc.ServiceError) => void>();
  const requests: QuotationsAsked[] = [];
  server.addService(QuotationsService.service, {
    getQuotationsWithMarkupStream: (call: grpc.ServerWritableStream<Partial<QuotationsRequest>, unknown>) => {
      const request = call.request;
      if (requests.push({ ...request }) > 100) requests.shift();
      const instruments = new Set(request.instruments ?? []);
      const known = new Set(deps.simulated.engine.symbols().map((s) => s.name));
      const refused =
        deps.refuse(call.metadata) ??
        (request.systemUuid !== deps.systemUuid
          ? failure(grpc.status.NOT_FOUND, "Unknown systemUuid.")
          : !deps.simulated.engine.groups().some((g) => g.name === request.group)
            ? failure(grpc.status.INVALID_ARGUMENT, "Unknown group.")
            : instruments.size === 0 || [...instruments].some((s) => !known.has(s))
              ? failure(grpc.status.INVALID_ARGUMENT, "instruments must name the group's instruments.")
              : null);
      if (refused) return void call.emit("error", refused);
      const throttlingMs = Math.max(0, Math.floor(request.throttlingMs ?? 0));
      let idle: TimerHandle | null = null;
      let flushing: TimerHandle | null = null;
      const held = new Map<string, MtQuote>();
      const send = (quote: MtQuote) => {
        call.write(quotationToPb(quote));
        if (idle) deps.clock.clearTimeout(idle);
        idle = deps.clock.setTimeout(() => end(failure(grpc.status.DEADLINE_EXCEEDED, "No data for 15 minutes")), deps.idleMs);
      };
      const flush = () => {
        flushing = null;
        for (const quote of held.values()) send(quote);
        held.clear();
      };
      const stopFeed = deps.simulated.engine.ctx.feed.listen((ticks) => {
        for (const tick of ticks) {
          if (!instruments.has(tick.symbol)) continue;
          const quote = deps.codec.quote.encode(tick);
          if (throttlingMs === 0) send(quote);
          else {
            held.set(quote.symbol, quote);
            flushing ??= deps.clock.setTimeout(flush, throttlingMs);
          }
        }
      });
      idle = deps.clock.setTimeout(() => end(failure(grpc.status.DEADLINE_EXCEEDED, "No data for 15 minutes")), deps.idleMs);
      let ended = false;
      const stop = () => {
        if (ended) return false;
        ended = true;
        ends.delete(end);
        stopFeed();
        if (idle) deps.clock.clearTimeout(idle);
        if (flushing) deps.clock.clearTimeout(flushing);
        return true;
      };
      const end = (error: grpc.ServiceError) => {
        if (stop()) call.emit("error", error);
      };
      ends.add(end);
      call.on("cancelled", stop);
      call.on("close", stop);
      call.on("error", stop);
    },
  });
  return {
    dropAll() {
      for (const end of [...ends]) end(failure(grpc.status.UNAVAILABLE, "Connection dropped"));
    },
    get open() {
      return ends.size;
    },
    requests,
  };
}
