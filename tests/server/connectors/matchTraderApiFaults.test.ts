/**
 * The Match-Trader Broker API connector against its protocol server's faults beyond the contract:
 * a deposit whose answer is lost, the 500 requests a minute on both sides, and failures explained
 * in a dealer's words (unreachable, refused or unwhitelisted token, timeout, rate limited).
 */
import * as grpc from "@grpc/grpc-js";
import { Agent, fetch } from "undici";
import { afterEach, describe, expect, it } from "vitest";
import { connectorConfigSchema } from "../../../server/connectors/config.ts";
import { createConnector, defaultSimulatedServers } from "../../../server/connectors/factory.ts";
import { TradingFeedService } from "../../../server/connectors/matchTraderApi/feed.ts";
import { createMatchTraderApiConnector } from "../../../server/connectors/matchTraderApi/transport.ts";
import { selfSignedCertificate } from "../../../server/protocolServers/certificates.ts";
import { FEED_IDLE_MS } from "../../../server/protocolServers/matchTrader/server.ts";
import { expectConnectorError, fundedAccount, uniqueId } from "./contract/helpers.ts";
import { LOCAL_TARGETS, matchTraderApiHarness, REQUEST_TIMEOUT_MS, type MatchTraderApiHarness } from "./matchTraderApiHarness.ts";

let harness: MatchTraderApiHarness | undefined;
const open = async () => {
  harness = await matchTraderApiHarness()();
  return harness;
};
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});
/** fetch trusting the protocol server's own CA. */
const trusting = (h: MatchTraderApiHarness) => new Agent({ connect: { ca: h.protocolServer.ca } });

describe("Match-Trader Broker API: money exactly once", () => {
  it("retries a deposit whose answer was lost after the server applied it, and it lands once", async () => {
    const h = await open();
    const { connector, protocolServer } = h;
    await connector.connect();
    const login = await fundedAccount(connector);
    const before = await connector.getAccount(login);
    protocolServer.faults.dropAnswerOf("/v1/deposits/manual");
    const request = { operationId: uniqueId("lost"), login, type: "deposit" as const, amount: 4_321, comment: "lost answer" };
    const result = await connector.balanceOperation(request);
    expect(protocolServer.stats.droppedAnswers).toBe(1);
    expect(result).toMatchObject({ operationId: request.operationId, amount: 4_321, balance: before.balance + 4_321 });
    expect(await connector.balanceOperation(request)).toEqual(result);
    expect((await connector.getAccount(login)).balance).toBe(before.balance + 4_321);
    const deals = await connector.dealHistory({ login, from: before.registration, to: h.now() });
    expect(deals.filter((d) => d.profit === 4_321).map((d) => [d.id, d.comment])).toEqual([[result.dealId, "lost answer"]]);
  });

  it("finds an operation a previous Toolbox process sent (by its tag) instead of sending it again", async () => {
    const h = await open();
    await h.connector.connect();
    const login = await fundedAccount(h.connector);
    const request = { operationId: uniqueId("again"), login, type: "creditIn" as const, amount: 900, comment: "bonus" };
    const first = await h.connector.balanceOperation(request);
    // A fresh connector remembers nothing: as after a restart.
    const restarted = h.connectWith({});
    await restarted.connect();
    const second = await restarted.balanceOperation(request);
    expect(second).toMatchObject({ dealId: first.dealId, credit: 900 });
    expect((await restarted.getAccount(login)).credit).toBe(900);
    await expectConnectorError(restarted.balanceOperation({ ...request, amount: 901 }), "invalidRequest");
  });
});

describe("Match-Trader Broker API: 500 requests a minute", () => {
  it("queues requests past the client's own limit instead of failing them", async () => {
    const h = await open();
    // The request timeout counts the time in the queue too: long enough for a minute's wait here.
    const limited = h.connectWith({ requestsPerMinute: 3, requestTimeoutMs: 120_000 });
    await limited.connect(); // two requests: offers and payment gateways
    const sent = h.protocolServer.stats.requests;
    const settled: string[] = [];
    const calls = [1, 2, 3, 4].map((i) => limited.listGroups().then(() => settled.push(`groups ${i}`)));
    await h.quiet();
    expect(h.protocolServer.stats.requests - sent).toBe(1);
    expect(settled).toEqual(["groups 1"]);
    await h.clock.advance(60_000);
    await h.quiet();
    await h.clock.advance(0);
    await Promise.all(calls);
    expect(h.protocolServer.stats.requests - sent).toBe(4);
    expect(h.protocolServer.stats.rateLimited).toBe(0);
  });

  it("reads an account's open positions and active orders only with its login, as the vendor's server; the connector reads all accounts' login by login", async () => {
    const h = await open();
    const { url, token, systemUuid } = h.protocolServer;
    const dispatcher = trusting(h);
    await h.connector.connect();
    const login = await fundedAccount(h.connector);
    h.engine.engine.setQuote("EURUSD", 1.1, 1.10012);
    const buy = await h.connector.placeOrder({ requestId: uniqueId("all-open"), login, symbol: "EURUSD", side: "buy", volume: 1000 });
    const pending = await h.connector.placePendingOrder({
      requestId: uniqueId("all-pending"),
      login,
      symbol: "EURUSD",
      type: "buyLimit",
      volume: 1000,
      price: 1.095,
    });
    for (const path of ["open-positions", "active-orders"]) {
      const refused = await fetch(`${url}/v1/trading-accounts/trading-data/${path}?systemUuid=${systemUuid}`, {
        headers: { authorization: token },
        dispatcher,
      });
      expect(refused.status, path).toBe(400);
      expect(await refused.json()).toMatchObject({ status: 400, detail: '"login" is required.' });
      const one = await fetch(`${url}/v1/trading-accounts/trading-data/${path}?systemUuid=${systemUuid}&login=${login}`, {
        headers: { authorization: token },
        dispatcher,
      });
      expect(one.status, path).toBe(200);
      await one.arrayBuffer();
    }
    // Every account's (no login): the position and the order are among them, each once.
    const positions = (await h.connector.openPositions()).filter((p) => p.login === login);
    expect(positions.map((p) => p.id)).toEqual([buy.positionId]);
    const orders = (await h.connector.pendingOrders()).filter((o) => o.login === login);
    expect(orders.map((o) => o.id)).toEqual([pending.orderId]);
  });

  it("answers the 501st request of a minute with 429 and the error body", async () => {
    const h = await open();
    const { url, token } = h.protocolServer;
    const dispatcher = trusting(h);
    for (let i = 0; i < 500; i++) {
      const ok = await fetch(`${url}/v1/offers`, { headers: { authorization: token }, dispatcher });
      expect(ok.status).toBe(200);
      await ok.arrayBuffer();
    }
    const refused = await fetch(`${url}/v1/offers`, { headers: { authorization: `Bearer ${token}` }, dispatcher });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(await refused.json()).toMatchObject({ status: 429, path: "/v1/offers", timestamp: expect.stringMatching(/Z$/) as unknown });
  });

  it("waits out a 429 for as long as the server asks, then sends the request again", async () => {
    const h = await open();
    const { protocolServer } = h;
    const connector = h.connectWith({ requestTimeoutMs: 120_000 });
    await connector.connect();
    protocolServer.faults.rateLimit(2); // connecting took two requests: the minute is full
    let done = false;
    const groups = connector.listGroups().then((g) => {
      done = true;
      return g;
    });
    await h.quiet();
    expect(protocolServer.stats.rateLimited).toBe(1);
    expect(done).toBe(false);
    await h.clock.advance(60_000);
    await h.quiet();
    expect((await groups).length).toBeGreaterThan(0);
  });
});

describe("Match-Trader Broker API: failures in a dealer's words", () => {
  it("says when the server cannot be reached", async () => {
    const h = await open();
    const nowhere = createMatchTraderApiConnector({
      apiUrl: "https://127.0.0.1:9",
      grpcAddress: "127.0.0.1:9",
      token: "x",
      targets: LOCAL_TARGETS,
      clock: h.clock,
    });
    const error = await expectConnectorError(nowhere.connect(), "unreachable");
    expect(error.message).toMatch(/could not be reached/);
  });

  it("says the API key was refused, or refused from this IP address, without repeating it", async () => {
    const h = await open();
    const wrong = h.connectWith({ token: "not-the-token" });
    const refused = await expectConnectorError(wrong.connect(), "credentialsRefused");
    expect(refused.message).toMatch(/refused the API key/);
    expect(refused.message).not.toContain("not-the-token");
    h.protocolServer.faults.forbid(true);
    const forbidden = await expectConnectorError(h.connector.connect(), "credentialsRefused");
    expect(forbidden.message).toMatch(/IP address is not on the key's whitelist/);
  });

  it("says the server did not answer in time", async () => {
    const h = await open();
    h.protocolServer.faults.slowAnswers(REQUEST_TIMEOUT_MS * 2);
    const outcome = expectConnectorError(h.connector.connect(), "timeout");
    await h.advance(REQUEST_TIMEOUT_MS + 1);
    expect((await outcome).message).toMatch(/did not answer within/);
    h.protocolServer.faults.restore();
    await h.advance(REQUEST_TIMEOUT_MS * 2);
  });

  it("says the server is limiting Toolbox's requests when it keeps answering 429", async () => {
    const h = await open();
    const connector = h.connectWith({ requestTimeoutMs: 600_000 });
    await connector.connect();
    h.protocolServer.faults.rateLimit(0);
    const outcome = expectConnectorError(connector.listGroups(), "rejected");
    for (let i = 0; i < 4; i++) await h.advance(60_000);
    const error = await outcome;
    expect(error.reason).toBe("serverBusy");
    expect(error.message).toMatch(/limiting Toolbox's requests \(500 a minute\)/);
  });
});

describe("Match-Trader Broker API: where it connects, and whom it trusts", () => {
  const connectorTo = (h: MatchTraderApiHarness, options: Partial<Parameters<typeof createMatchTraderApiConnector>[0]>) =>
    createMatchTraderApiConnector({
      apiUrl: h.protocolServer.url,
      grpcAddress: h.protocolServer.grpcAddress,
      token: h.protocolServer.token,
      ca: h.protocolServer.ca,
      targets: LOCAL_TARGETS,
      clock: h.clock,
      requestTimeoutMs: REQUEST_TIMEOUT_MS,
      connectTimeoutMs: REQUEST_TIMEOUT_MS,
      ...options,
    });

  it("sends the API key over HTTPS only: an http:// URL is refused before anything is sent", async () => {
    const h = await open();
    const plain = connectorTo(h, { apiUrl: h.protocolServer.url.replace("https:", "http:") });
    const error = await expectConnectorError(plain.connect(), "invalidRequest");
    expect(error.message).toMatch(/over HTTPS only: the API URL must start with https:\/\//);
    expect(h.protocolServer.stats.requests).toBe(0);
  });

  it("refuses a loopback or private address, for REST or the feed, before a packet goes to either", async () => {
    const h = await open();
    const defaults = connectorTo(h, { targets: undefined });
    const refused = await expectConnectorError(defaults.connect(), "invalidRequest");
    expect(refused.message).toMatch(/does not connect to this address.*TRADE_SERVER_ALLOWED_TARGETS/);
    const privateFeed = connectorTo(h, { grpcAddress: "10.20.30.40:443" });
    await expectConnectorError(privateFeed.connect(), "invalidRequest");
    const metadataFeed = connectorTo(h, { grpcAddress: "169.254.169.254:80" });
    await expectConnectorError(metadataFeed.connect(), "invalidRequest");
    expect(h.protocolServer.stats.requests).toBe(0);
    expect(h.protocolServer.stats.liveStreams).toBe(0);
    // The same server, allowed, connects.
    const allowed = connectorTo(h, {});
    await allowed.connect();
    expect(allowed.state).toBe("connected");
    await allowed.disconnect();
  });

  it("trusts only the configured CA: the system's or another CA's certificate is not enough", async () => {
    const h = await open();
    for (const ca of [undefined, (await selfSignedCertificate()).ca]) {
      const untrusting = connectorTo(h, { ca });
      const error = await expectConnectorError(untrusting.connect(), "unreachable");
      expect(error.message).toMatch(/HTTPS certificate is not trusted: give the certificate of the CA that signed it/);
    }
    expect(h.protocolServer.stats.requests).toBe(0);
  });

  it("runs the feed over TLS with the same certificate: a client trusting nothing gets no stream", async () => {
    const h = await open();
    const client = new TradingFeedService(h.protocolServer.grpcAddress, grpc.credentials.createSsl());
    const metadata = new grpc.Metadata();
    metadata.set("authorization", `Bearer ${h.protocolServer.token}`);
    const code = await new Promise<number>((resolve) =>
      (client as unknown as { ping: (r: object, m: grpc.Metadata, cb: (e: grpc.ServiceError | null) => void) => void }).ping({}, metadata, (e) =>
        resolve(e?.code ?? grpc.status.OK),
      ),
    );
    expect(code).toBe(grpc.status.UNAVAILABLE);
    client.close();
  });
});

describe("Match-Trader Broker API: configuration", () => {
  it("builds the connector from a matchTraderApi configuration, and refuses one without an https URL or key", async () => {
    const h = await open();
    const config = connectorConfigSchema.parse({
      kind: "matchTraderApi",
      apiUrl: h.protocolServer.url,
      grpcAddress: h.protocolServer.grpcAddress,
      apiKey: h.protocolServer.token,
      caCertificate: h.protocolServer.ca,
    });
    const connector = createConnector(config, { clock: h.clock, simulatedServers: defaultSimulatedServers, tradeServerTargets: LOCAL_TARGETS });
    await connector.connect();
    expect(connector.platform).toBe("MatchTrader");
    expect((await connector.listAccounts({ limit: 5 })).items).toHaveLength(5);
    await connector.disconnect();
    expect(connectorConfigSchema.safeParse({ ...config, apiUrl: "ftp://example.com" }).success).toBe(false);
    expect(connectorConfigSchema.safeParse({ ...config, apiUrl: h.protocolServer.url.replace("https:", "http:") }).success).toBe(false);
    expect(connectorConfigSchema.safeParse({ ...config, apiKey: "" }).success).toBe(false);
  });
});

describe("Match-Trader protocol server: control API", () => {
  it("switches faults on and off over HTTP with its own token", async () => {
    const h = await open();
    const { url, controlToken, token } = h.protocolServer;
    const control = (body: unknown, auth = controlToken) =>
      fetch(`${url}/_control/faults`, {
        dispatcher: trusting(h),
        method: "POST",
        headers: { authorization: `Bearer ${auth}`, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
    expect((await control({ refuseConnections: true }, token)).status).toBe(401);
    expect((await control({ sunspots: true })).status).toBe(400);
    expect((await control({ refuseConnections: true })).status).toBe(200);
    await expectConnectorError(h.connector.connect(), "unreachable");
    expect((await control({ restore: true })).status).toBe(200);
    await h.connector.connect();
    expect(h.connector.state).toBe("connected");
  });
});

describe("Match-Trader Broker API: the feed's 15-minute idle limit", () => {
  it("keeps a quiet feed open by pinging every 50 s", async () => {
    const h = await open();
    await h.connector.connect();
    for (let i = 0; i < 24; i++) await h.advance(50_000); // 20 minutes without trading
    expect(h.connector.state).toBe("connected");
    expect(h.protocolServer.stats.liveStreams).toBe(1);
  });

  it("ends a feed stream that nobody pings after 15 minutes without data", async () => {
    const h = await open();
    const client = new TradingFeedService(h.protocolServer.grpcAddress, grpc.credentials.createSsl(Buffer.from(h.protocolServer.ca)));
    const metadata = new grpc.Metadata();
    metadata.set("authorization", `Bearer ${h.protocolServer.token}`);
    const stream = (client as unknown as { getTradingFeedStream: (r: object, m: grpc.Metadata) => grpc.ClientReadableStream<unknown> }).getTradingFeedStream(
      { systemUuid: h.protocolServer.systemUuid },
      metadata,
    );
    const ended = new Promise<number>((resolve) => stream.on("error", (e: grpc.ServiceError) => resolve(e.code)));
    await new Promise((resolve) => stream.once("data", resolve));
    await h.advance(FEED_IDLE_MS - 1);
    expect(h.protocolServer.stats.liveStreams).toBe(1);
    await h.advance(1);
    expect(await ended).toBe(grpc.status.DEADLINE_EXCEEDED);
    client.close();
    // 15 minutes of the manual clock run the engine's timers one by one (about 12,000): some 15 s
    // here, half the default timeout.
  }, 60_000);
});
