/**
 * The MT4 manager gateway as docs/mt4-gateway.md defines it, on the local protocol server, and
 * the connector's own duties there: MT4's units on the wire (volume lots × 100, server-time
 * seconds), return codes, the session token, the pumping stream and its resume, refusals in a
 * dealer's words, the trusted CA only, daylight time, the gateway's rate limit, the idle drop, and
 * money that lands once when its answer is lost with the connection.
 */
import { Client } from "undici";
import { afterEach, describe, expect, it } from "vitest";
import { ManualClock } from "../../../server/connectors/clock.ts";
import { createMt4GatewayConnector } from "../../../server/connectors/mt4Gateway/connector.ts";
import { MT4_GATEWAY_PING_MS } from "../../../server/connectors/mt4Gateway/session.ts";
import { DEFAULT_MANAGER, SimulatedServer } from "../../../server/connectors/simulated/server.ts";
import { selfSignedCertificate } from "../../../server/protocolServers/certificates.ts";
import { Mt4GatewayServer } from "../../../server/protocolServers/mt4Gateway/server.ts";
import { expectConnectorError, fundedAccount, uniqueId } from "./contract/helpers.ts";
import { LOCAL_TARGETS, mt4GatewayHarness, testCertificate } from "./mt4GatewayHarness.ts";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function harness(options: Parameters<typeof mt4GatewayHarness>[0] = {}) {
  const h = await mt4GatewayHarness(options)();
  cleanups.push(() => h.close());
  await h.connector.connect();
  return h;
}

interface Answer {
  ret: number;
  error?: string;
  [field: string]: unknown;
}

/** A raw HTTPS client, as another program speaking the gateway's protocol would. */
async function rawClient(url: string, ca: string) {
  const client = new Client(url, { connect: { ca }, pipelining: 1 });
  cleanups.push(() => client.destroy());
  let token = "";
  const post = async (path: string, body: object = {}) => {
    const response = await client.request({
      path,
      method: "POST",
      headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify(body),
    });
    return { status: response.statusCode, answer: (await response.body.json()) as Answer };
  };
  return {
    post,
    async login(password = DEFAULT_MANAGER.password) {
      const result = await post("/api/Login", { login: Number(DEFAULT_MANAGER.login), password });
      if (typeof result.answer.token === "string") token = result.answer.token;
      return result;
    },
    get token() {
      return token;
    },
  };
}

/** The pumping stream on a connection of its own: its NDJSON lines, read one at a time. */
async function pump(url: string, ca: string, token: string, query = "") {
  const client = new Client(url, { connect: { ca } });
  cleanups.push(() => client.destroy());
  const response = await client.request({ path: `/api/Pumping${query}`, method: "GET", headers: { authorization: `Bearer ${token}` } });
  expect(response.headers["content-type"]).toMatch(/application\/x-ndjson/);
  const chunks = response.body[Symbol.asyncIterator]();
  const ready: Record<string, unknown>[] = [];
  let pending = "";
  return async function next(): Promise<Record<string, unknown>> {
    while (ready.length === 0) {
      const chunk = await chunks.next();
      if (chunk.done) throw new Error("The stream ended");
      pending += String(chunk.value);
      const parts = pending.split("\n");
      pending = parts.pop() ?? "";
      for (const part of parts) if (part.trim()) ready.push(JSON.parse(part) as Record<string, unknown>);
    }
    return ready.shift()!;
  };
}

describe("MT4 gateway protocol server", () => {
  it("logs a manager in with a token and answers in MT4's units: lots × 100, server-time seconds, return codes", async () => {
    const h = await harness();
    const tls = await testCertificate();
    const raw = await rawClient(h.server.url, tls.ca);

    // No session yet: RET_NO_CONNECT with 401.
    expect(await raw.post("/api/ServerTime")).toMatchObject({ status: 401, answer: { ret: 6 } });
    expect((await raw.login("Wrong-pass1")).answer).toMatchObject({ ret: 65 });
    expect((await raw.login()).answer).toMatchObject({ ret: 0 });
    expect(raw.token).toMatch(/^[0-9a-f]{64}$/);

    const time = await raw.post("/api/ServerTime");
    // Server time: UTC plus the server's zone (UTC+2 for the simulated MT4), in whole seconds.
    expect(time.answer).toEqual({ ret: 0, time: Math.floor((h.now() + h.simulated.timeZoneOffsetMinutes * 60_000) / 1000) });
    expect((await raw.post("/api/CfgRequestCommon")).answer).toEqual({ ret: 0, timezone: 120, daylightcorrection: 0 });

    // Half a lot through the connector is volume 50 on the wire.
    const login = await fundedAccount(h.connector);
    const opened = await h.connector.placeOrder({ requestId: uniqueId("half"), login, symbol: "EURUSD", side: "buy", volume: 5_000 });
    const trades = (await raw.post("/api/TradesRequest", { login: Number(login) })).answer.trades as { order: number; volume: number; cmd: number }[];
    expect(trades).toEqual([expect.objectContaining({ order: Number(opened.positionId), volume: 50, cmd: 0 })]);
    const symbols = (await raw.post("/api/CfgRequestSymbol")).answer.symbols as { symbol: string; lot_min: number; lot_step: number }[];
    expect(symbols.find((s) => s.symbol === "EURUSD")).toMatchObject({ lot_min: 1, lot_step: 1 });

    // TT_BR_BALANCE: cmd OP_BALANCE, orderby the login, price the amount; the new ticket comes back.
    const deposit = await raw.post("/api/TradeTransaction", { type: 83, cmd: 6, orderby: Number(login), price: 12.5, comment: "raw" });
    expect(deposit.answer).toMatchObject({ ret: 0, order: expect.any(Number) });
    const history = (await raw.post("/api/TradesUserHistory", { login: Number(login), from: 0, to: 2_000_000_000 })).answer.trades as {
      order: number;
      cmd: number;
      profit: number;
    }[];
    expect(history).toContainEqual(expect.objectContaining({ order: deposit.answer.order, cmd: 6, profit: 12.5 }));

    // Bad input: RET_INVALID_DATA with words.
    const bad = await raw.post("/api/TradeTransaction", { type: 83, cmd: 0, orderby: Number(login), price: 1, comment: "" });
    expect(bad.answer).toMatchObject({ ret: 3, error: expect.stringMatching(/OP_BALANCE/) });
    const unknown = await raw.post("/api/UserRecordsRequest", { logins: [999_999_999] });
    expect(unknown.answer).toEqual({ ret: 0, users: [] });
  });

  it("pumps events as NDJSON with sequence numbers, and replays from a sequence on request", async () => {
    const h = await harness();
    const tls = await testCertificate();
    const raw = await rawClient(h.server.url, tls.ca);
    await raw.login();
    const login = await fundedAccount(h.connector);
    const { latest } = (await raw.post("/api/PumpingHistory", { after: 0, limit: 0 })).answer as unknown as { latest: number };

    const live = await pump(h.server.url, tls.ca, raw.token);
    expect(await live()).toEqual({ type: "start", sequence: latest });
    await raw.post("/api/TradeTransaction", { type: 83, cmd: 6, orderby: Number(login), price: 3, comment: "pumped" });
    const event = (await live()) as { type: string; sequence: number; event: { pumps: unknown[] } };
    expect(event).toMatchObject({ type: "event", sequence: latest + 1 });
    expect(event.event.pumps).toContainEqual(
      expect.objectContaining({ type: "trade", transaction: "add", trade: expect.objectContaining({ cmd: 6, profit: 3 }) }),
    );

    // Resume: the events after a sequence first, then live ones.
    const replay = await pump(h.server.url, tls.ca, raw.token, `?after=${latest - 1}`);
    expect(await replay()).toEqual({ type: "start", sequence: latest - 1 });
    expect(await replay()).toMatchObject({ type: "event", sequence: latest });
    expect(await replay()).toMatchObject({ type: "event", sequence: latest + 1 });

    // A sequence the gateway never reached is refused, not waited for.
    const client = new Client(h.server.url, { connect: { ca: tls.ca } });
    cleanups.push(() => client.destroy());
    const ahead = await client.request({ path: `/api/Pumping?after=${latest + 1_000}`, method: "GET", headers: { authorization: `Bearer ${raw.token}` } });
    expect(await ahead.body.json()).toMatchObject({ ret: 3 });
  });

  it("answers RET_TOO_FREQUENT with 429 when limiting, and the connector reports a busy server to retry", async () => {
    const h = await harness();
    h.server.faults.nextRet = 8;
    const busy = await expectConnectorError(h.connector.listGroups(), "rejected");
    expect(busy.reason).toBe("serverBusy");
    expect(busy.retryable).toBe(true);
    expect(busy.message).toMatch(/limiting requests/);
    expect((await h.connector.listGroups()).length).toBeGreaterThan(0);

    const tls = await testCertificate();
    const raw = await rawClient(h.server.url, tls.ca);
    await raw.login();
    h.server.faults.nextRet = 8;
    expect(await raw.post("/api/Ping")).toEqual({ status: 429, answer: { ret: 8, error: expect.any(String) } });
  });

  it("closes a silent request connection, and the connector logs in again", async () => {
    const clock = new ManualClock();
    const simulated = new SimulatedServer({ platform: "MT4", clock, seed: 7, accounts: 20, tradeRate: 0 });
    simulated.start();
    const tls = await testCertificate();
    const server = new Mt4GatewayServer({ simulated, tls, idleTimeoutMs: 300 });
    await server.listen();
    const connector = createMt4GatewayConnector({ url: server.url, ca: tls.ca, targets: LOCAL_TARGETS, clock, credentials: DEFAULT_MANAGER });
    cleanups.push(async () => {
      await connector.disconnect();
      await server.close();
      simulated.stop();
    });
    await connector.connect();
    // Nothing is sent (the manual clock holds the 20 s ping back): the gateway hangs up.
    await new Promise<void>((resolve) => connector.onStateChange((c) => c.state === "reconnecting" && resolve()));
    expect(connector.lastError?.code).toBe("unreachable");
    await connector.connect();
    expect((await connector.listGroups()).length).toBeGreaterThan(0);
  });
});

describe("MT4 gateway connector", () => {
  it("trusts only the configured CA: another certificate is explained, not accepted", async () => {
    const h = await harness();
    const other = await selfSignedCertificate();
    const stranger = createMt4GatewayConnector({ url: h.server.url, ca: other.ca, targets: LOCAL_TARGETS, clock: h.clock, credentials: DEFAULT_MANAGER });
    const error = await expectConnectorError(stranger.connect(), "unreachable");
    expect(error.message).toMatch(/certificate is not trusted/);
  });

  it("refuses loopback unless allowed, before connecting", async () => {
    const h = await harness();
    const refused = createMt4GatewayConnector({ url: h.server.url, ca: (await testCertificate()).ca, clock: h.clock, credentials: DEFAULT_MANAGER });
    const error = await expectConnectorError(refused.connect(), "invalidRequest");
    expect(error.message).toMatch(/TRADE_SERVER_ALLOWED_TARGETS/);
    expect(h.server.sessionCount).toBe(1); // only the harness's own connector logged in
  });

  it("explains a manager without rights (RET_NOT_ENOUGH_RIGHTS) and an IP not allowed (RET_SECURITY_SESSION)", async () => {
    const h = await harness();
    h.server.faults.authRet = 7;
    const noRights = await expectConnectorError(h.connectorWith(DEFAULT_MANAGER).connect(), "credentialsRefused");
    expect(noRights.message).toMatch(/lacks the rights.*RET_NOT_ENOUGH_RIGHTS/);
    h.server.faults.authRet = 11;
    const blocked = await expectConnectorError(h.connectorWith(DEFAULT_MANAGER).connect(), "credentialsRefused");
    expect(blocked.message).toMatch(/IP is not allowed.*RET_SECURITY_SESSION/);
  });

  it("converts server time to UTC with the zone the server reports, daylight time included", async () => {
    const clock = new ManualClock();
    const simulated = new SimulatedServer({ platform: "MT4", clock, seed: 9, accounts: 10, tradeRate: 0, timeZoneOffsetMinutes: 180 });
    simulated.start();
    const tls = await testCertificate();
    // Told as a server in summer: standard time UTC+2, plus one hour of daylight correction.
    const server = new Mt4GatewayServer({ simulated, tls, daylightTime: true });
    await server.listen();
    const connector = createMt4GatewayConnector({ url: server.url, ca: tls.ca, targets: LOCAL_TARGETS, clock, credentials: DEFAULT_MANAGER });
    cleanups.push(async () => {
      await connector.disconnect();
      await server.close();
      simulated.stop();
    });
    await connector.connect();
    const time = await connector.serverTime();
    expect(time.timeZoneOffsetMinutes).toBe(180);
    expect(time.time).toBe(Math.floor(clock.now() / 1000) * 1000);
    const login = await fundedAccount(connector);
    const [deposit] = await connector.dealHistory({ login, from: clock.now() - 60_000, to: clock.now() + 60_000 });
    expect(deposit?.time).toBe(Math.floor(clock.now() / 1000) * 1000);
  });

  it("follows a daylight-saving switch inside a session, at the next ping", async () => {
    const { connector, server, clock } = await harness({ seed: 9, accounts: 5, timeZoneOffsetMinutes: 120 });
    expect((await connector.serverTime()).timeZoneOffsetMinutes).toBe(120);
    server.daylightSwitched = true;
    await clock.advance(MT4_GATEWAY_PING_MS);
    await expect.poll(async () => (await connector.serverTime()).timeZoneOffsetMinutes).toBe(180);
    server.daylightSwitched = false;
    await clock.advance(MT4_GATEWAY_PING_MS);
    await expect.poll(async () => (await connector.serverTime()).timeZoneOffsetMinutes).toBe(120);
  });

  it("retries a deposit whose answer was lost with the connection: it lands once, also from a fresh connector", async () => {
    const h = await harness();
    const login = await fundedAccount(h.connector);
    const before = await h.connector.getAccount(login);
    const request = { operationId: uniqueId("lost"), login, type: "deposit" as const, amount: 4_321, comment: "Lost answer deposit" };
    h.server.faults.dropAfterNextBalance = true;
    await expectConnectorError(h.connector.balanceOperation(request), "unreachable");
    // The gateway applied it; the connector did not hear back.
    expect(h.simulated.engine.getAccount(login).balance).toBe(before.balance + 4_321);
    await h.advance(0);
    await h.connector.connect();
    const retried = await h.connector.balanceOperation(request);
    expect(retried).toMatchObject({ operationId: request.operationId, amount: 4_321, balance: before.balance + 4_321 });
    expect((await h.connector.getAccount(login)).balance).toBe(before.balance + 4_321);

    // A Toolbox process that starts afresh (no memory of the first attempt) finds it too.
    const restarted = h.connectorWith(DEFAULT_MANAGER);
    await restarted.connect();
    const again = await restarted.balanceOperation(request);
    expect(again.dealId).toBe(retried.dealId);
    expect((await restarted.getAccount(login)).balance).toBe(before.balance + 4_321);
    const deals = await restarted.dealHistory({ login, from: before.registration, to: h.now() });
    const deposits = deals.filter((d) => d.profit === 4_321);
    expect(deposits).toHaveLength(1);
    // The tag stays Toolbox's business: the dealer sees the comment (its first 19 characters).
    expect(deposits[0]?.comment).toBe("Lost answer deposit");
    // And a different request under the same id is refused, even without memory of the first.
    const fresh = h.connectorWith(DEFAULT_MANAGER);
    await fresh.connect();
    const error = await expectConnectorError(fresh.balanceOperation({ ...request, amount: 1 }), "invalidRequest");
    expect(error.message).toMatch(/already used/);
  });
});
