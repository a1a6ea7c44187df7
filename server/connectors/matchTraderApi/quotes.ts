/**
 * Live quotes from a Match-Trader Broker API server (docs/quotes-monitor.md): the vendor's gRPC
 * `QuotationsServiceExternal.getQuotationsWithMarkupStream` (quotations.proto), shared by the
 * connector and the local protocol server. The vendor streams a group's prices (with its markup)
 * for the instruments named, one quote a message; the connector asks for the first offer's group
 * and every tick (`throttlingMs` 0 unless configured), and hands the quotes on in batches (those
 * that arrived together). The vendor ends a stream after 15 minutes without data (a weekend): it is
 * opened again after a second while the session lives; a refused token ends it.
 */
import * as grpc from "@grpc/grpc-js";
import * as protoLoader from "@grpc/proto-loader";
import { fileURLToPath } from "node:url";
import type { Clock, TimerHandle } from "../clock.ts";
import type { MtQuote } from "../matchTrader/native.ts";

const PROTO = fileURLToPath(new URL("./quotations.proto", import.meta.url));
const definition = protoLoader.loadSync(PROTO, { keepCase: true, longs: Number, enums: String, defaults: false, oneofs: false });
const loaded = grpc.loadPackageDefinition(definition) as unknown as {
  com: { matchtrade: { broker_api: { grpc: { QuotationsServiceExternal: grpc.ServiceClientConstructor } } } };
};

export const QuotationsService = loaded.com.matchtrade.broker_api.grpc.QuotationsServiceExternal;

/** The stream's request, as the vendor documents it. */
export interface QuotationsRequest {
  systemUuid: string;
  instruments: string[];
  group: string;
  throttlingMs: number;
  includeDailyStatistics: boolean;
}

/** One message of the stream. */
export interface PbQuotation {
  symbol: string;
  bidPrice: number;
  askPrice: number;
  timestampInMillis: number;
}

export function quotationToPb(quote: MtQuote): PbQuotation {
  return { symbol: quote.symbol, bidPrice: quote.bid, askPrice: quote.ask, timestampInMillis: Date.parse(quote.timestamp) };
}

export function quotationFromPb(message: Record<string, unknown>): MtQuote {
  return {
    symbol: typeof message.symbol === "string" ? message.symbol : "",
    bid: Number(message.bidPrice ?? 0),
    ask: Number(message.askPrice ?? 0),
    timestamp: new Date(Number(message.timestampInMillis ?? 0)).toISOString(),
  };
}

/** How long an ended quotations stream waits before it is opened again. */
export const QUOTATIONS_REOPEN_MS = 1_000;

export interface QuotationsStreamOptions {
  client: grpc.Client;
  metadata: () => grpc.Metadata;
  systemUuid: string;
  /** The group whose prices are streamed (the vendor adds its markup). */
  group: string;
  /** The instruments asked: the consumer's, or every symbol of the server. */
  instruments: () => Promise<string[]>;
  throttlingMs?: number;
  clock: Clock;
  /** False once the session has ended: the stream is not opened again. */
  alive: () => boolean;
}

export function streamQuotations(options: QuotationsStreamOptions, onTicks: (ticks: readonly MtQuote[]) => void): () => void {
  let stopped = false;
  let call: grpc.ClientReadableStream<Record<string, unknown>> | null = null;
  let retry: TimerHandle | null = null;
  let batch: MtQuote[] = [];

  const flush = () => {
    const ticks = batch;
    batch = [];
    if (!stopped && ticks.length > 0) onTicks(ticks);
  };

  const again = () => {
    call = null;
    if (stopped || !options.alive()) return;
    retry = options.clock.setTimeout(() => void open(), QUOTATIONS_REOPEN_MS);
  };

  const open = async () => {
    retry = null;
    if (stopped || !options.alive()) return;
    let instruments: string[];
    try {
      instruments = await options.instruments();
    } catch {
      return again();
    }
    if (stopped || instruments.length === 0) return;
    const request: QuotationsRequest = {
      systemUuid: options.systemUuid,
      instruments,
      group: options.group,
      throttlingMs: options.throttlingMs ?? 0,
      includeDailyStatistics: false,
    };
    const opened = (
      options.client as unknown as {
        getQuotationsWithMarkupStream: (req: object, md: grpc.Metadata) => grpc.ClientReadableStream<Record<string, unknown>>;
      }
    ).getQuotationsWithMarkupStream(request, options.metadata());
    call = opened;
    opened.on("data", (message: Record<string, unknown>) => {
      if (batch.length === 0) setImmediate(flush);
      batch.push(quotationFromPb(message));
    });
    let ended = false;
    const end = (error: grpc.ServiceError | null) => {
      if (ended) return;
      ended = true;
      if (call !== opened) return;
      if (error?.code === grpc.status.UNAUTHENTICATED || error?.code === grpc.status.PERMISSION_DENIED) {
        call = null;
        return;
      }
      again();
    };
    opened.on("error", (error: grpc.ServiceError) => end(error));
    opened.on("end", () => end(null));
  };

  void open();
  return () => {
    stopped = true;
    if (retry) options.clock.clearTimeout(retry);
    const current = call;
    call = null;
    current?.cancel();
  };
}
