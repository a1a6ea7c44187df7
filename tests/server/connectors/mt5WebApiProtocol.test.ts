/**
 * The MT5 Web API as the vendor specifies it (docs/connectors.md#vendor-mt5), on the local protocol server, and
 * the connector's own duties there: the MD5 challenge with its test vector, the envelope with
 * numbers as strings, paging limits, vendor refusals in a dealer's words, the trusted CA only,
 * the idle drop, and money that lands once when its answer is lost with the connection.
 */
import { Client } from "undici";
import { afterEach, describe, expect, it } from "vitest";
import { ManualClock } from "../../../server/connectors/clock.ts";
import { challengeAnswer, passwordHash } from "../../../server/connectors/mt5WebApi/auth.ts";
import { createMt5WebApiConnector } from "../../../server/connectors/mt5WebApi/connector.ts";
import { MT5_WEB_API_PING_MS } from "../../../server/connectors/mt5WebApi/session.ts";
import { checkTarget, NO_INTERNAL_TARGETS, tradeServerTargetPolicy } from "../../../server/connectors/target.ts";
import { DEFAULT_MANAGER, SimulatedServer } from "../../../server/connectors/simulated/server.ts";
import { selfSignedCertificate } from "../../../server/protocolServers/certificates.ts";
import { MT5_WEB_API_RETCODE, Mt5WebApiServer } from "../../../server/protocolServers/mt5WebApi/server.ts";
import { expectConnectorError, fundedAccount, uniqueId } from "./contract/helpers.ts";
import { LOCAL_TARGETS, mt5WebApiHarness, testCertificate } from "./mt5WebApiHarness.ts";

describe("MT5 Web API handshake hash (docs/connectors.md#vendor-mt5 test vector)", () => {
  it("hashes the password as raw bytes and answers both challenges", () => {
    const hash = passwordHash("Password1");
    expect(hash.toString("hex")).toBe("904ba8ecb16273d2f0ae9c3b8a023752");
    expect(challengeAnswer(hash, "73007dc7184747ce0f7c98516ef1c851")).toBe("77fe51827f7fa69dd80fbec9aa33f1bb");
    expect(challengeAnswer(hash, "4db98fec17aab4dc5a240bdc659e8395")).toBe("1732021b1b332f51660b2b315eed3a35");
  });
});

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function harness(options: Parameters<typeof mt5WebApiHarness>[0] = {}) {
  const h = await mt5WebApiHarness(options)();
  cleanups.push(() => h.close());
  await h.connector.connect();
  return h;
}

/** A raw HTTPS client on one connection, as a vendor SDK would speak. */
async function rawSession(url: string, ca: string, password = DEFAULT_MANAGER.password) {
  const client = new Client(url, { connect: { ca }, pipelining: 1 });
  cleanups.push(() => client.close());
  const get = async (path: string) => {
    const response = await client.request({ path, method: "GET" });
    return { status: response.statusCode, text: await response.body.text() };
  };
  const start = JSON.parse((await get(`/api/auth/start?version=4000&agent=test&login=${DEFAULT_MANAGER.login}&type=manager`)).text) as { srv_rand: string };
  const hash = passwordHash(password);
  const cliRand = "4db98fec17aab4dc5a240bdc659e8395";
  const answer = await get(`/api/auth/answer?srv_rand_answer=${challengeAnswer(hash, start.srv_rand)}&cli_rand=${cliRand}`);
  return { get, answer: JSON.parse(answer.text) as { retcode: string; cli_rand_answer?: string }, expected: challengeAnswer(hash, cliRand) };
}

describe("MT5 Web API protocol server", () => {
  it("answers in the vendor's envelope, with numbers as strings and pages of at most 100", async () => {
    const h = await harness();
    const tls = await testCertificate();
    const raw = await rawSession(h.server.url, tls.ca);
    expect(raw.answer.retcode).toBe("0 Done");
    expect(raw.answer.cli_rand_answer).toBe(raw.expected);

    const logins = JSON.parse((await raw.get("/api/user/logins?group=*")).text) as { retcode: string; answer: string[] };
    expect(logins.retcode).toBe("0 Done");
    const login = logins.answer[0] ?? "";
    const user = await raw.get(`/api/user/get?login=${login}`);
    expect(user.text).toMatch(/"Leverage":"\d+"/);
    expect(user.text).toMatch(/"Login":"\d+"/);
    // The user (IMTUser) and its trade state (IMTAccount) are served apart, as the vendor does.
    expect(user.text).not.toMatch(/"Equity"/);
    const state = await raw.get(`/api/user/account/get?login=${login}`);
    expect(state.text).toMatch(/"Equity":"-?\d+(\.\d+)?"/);

    const time = JSON.parse((await raw.get("/api/time/server")).text) as { answer: { Time: string } };
    const [seconds] = time.answer.Time.split(" ");
    // Server time: UTC plus the server's zone (UTC+2 for the simulated MT5), in seconds.
    expect(Number(seconds)).toBe(Math.floor((h.now() + h.simulated.timeZoneOffsetMinutes * 60_000) / 1000));

    const tooBig = JSON.parse((await raw.get(`/api/position/get_page?login=${login}&offset=0&total=101`)).text) as { retcode: string };
    expect(tooBig.retcode).toMatch(/^3 /);
  });

  it("refuses a wrong password at the handshake and keeps commands behind it", async () => {
    const h = await harness();
    const tls = await testCertificate();
    const raw = await rawSession(h.server.url, tls.ca, "Wrong-pass1");
    expect(raw.answer.retcode).toBe(MT5_WEB_API_RETCODE.authFailed);
    const command = await raw.get("/api/user/total");
    expect(command.status).toBe(403);
  });

  it("drops a connection after the idle time, and the connector handshakes again", async () => {
    const clock = new ManualClock();
    const simulated = new SimulatedServer({ platform: "MT5", clock, seed: 7, accounts: 20, tradeRate: 0 });
    simulated.start();
    const tls = await testCertificate();
    const server = new Mt5WebApiServer({ simulated, tls, idleTimeoutMs: 300 });
    await server.listen();
    const connector = createMt5WebApiConnector({ url: server.url, ca: tls.ca, targets: LOCAL_TARGETS, clock, credentials: DEFAULT_MANAGER });
    cleanups.push(async () => {
      await connector.disconnect();
      await server.close();
      simulated.stop();
    });
    await connector.connect();
    // Nothing is sent (the manual clock holds the 20 s ping back): the server hangs up.
    await new Promise<void>((resolve) => connector.onStateChange((c) => c.state === "reconnecting" && resolve()));
    expect(connector.lastError?.code).toBe("unreachable");
    await connector.connect();
    expect((await connector.listGroups()).length).toBeGreaterThan(0);
  });
});

describe("MT5 Web API connector", () => {
  it("trusts only the configured CA: another certificate is explained, not accepted", async () => {
    const h = await harness();
    const other = await selfSignedCertificate();
    const stranger = createMt5WebApiConnector({ url: h.server.url, ca: other.ca, targets: LOCAL_TARGETS, clock: h.clock, credentials: DEFAULT_MANAGER });
    const error = await expectConnectorError(stranger.connect(), "unreachable");
    expect(error.message).toMatch(/certificate is not trusted/);
    const systemOnly = createMt5WebApiConnector({ url: h.server.url, targets: LOCAL_TARGETS, clock: h.clock, credentials: DEFAULT_MANAGER });
    await expectConnectorError(systemOnly.connect(), "unreachable");
  });

  it("explains a manager without rights (retcode 8) and a blocked IP (retcode 1012)", async () => {
    const h = await harness();
    h.server.faults.authRetcode = MT5_WEB_API_RETCODE.noPermissions;
    const noRights = await expectConnectorError(h.connectorWith(DEFAULT_MANAGER).connect(), "credentialsRefused");
    expect(noRights.message).toMatch(/lacks the rights.*retcode 8/);
    h.server.faults.authRetcode = MT5_WEB_API_RETCODE.ipBlocked;
    const blocked = await expectConnectorError(h.connectorWith(DEFAULT_MANAGER).connect(), "credentialsRefused");
    expect(blocked.message).toMatch(/whitelist.*retcode 1012/);
  });

  it("converts server time to UTC with the zone the server reports", async () => {
    const h = await harness({ timeZoneOffsetMinutes: 180 });
    const time = await h.connector.serverTime();
    expect(time.timeZoneOffsetMinutes).toBe(180);
    expect(Math.abs(time.time - h.now())).toBeLessThan(1000);
    const login = await fundedAccount(h.connector);
    const [deposit] = await h.connector.dealHistory({ login, from: h.now() - 60_000, to: h.now() + 60_000 });
    expect(deposit?.time).toBe(h.now());
  });

  it("follows a daylight-saving switch inside a session, at the next ping", async () => {
    const h = await harness({ timeZoneOffsetMinutes: 120 });
    expect((await h.connector.serverTime()).timeZoneOffsetMinutes).toBe(120);
    h.server.daylightState = 1;
    await h.advance(MT5_WEB_API_PING_MS);
    expect((await h.connector.serverTime()).timeZoneOffsetMinutes).toBe(180);
    h.server.daylightState = 0;
    await h.advance(MT5_WEB_API_PING_MS);
    expect((await h.connector.serverTime()).timeZoneOffsetMinutes).toBe(120);
  });

  it("retries a deposit whose answer was lost with the connection: it lands once", async () => {
    const h = await harness();
    const login = await fundedAccount(h.connector);
    const before = await h.connector.getAccount(login);
    const request = { operationId: uniqueId("lost"), login, type: "deposit" as const, amount: 4_321, comment: "Lost answer deposit" };
    h.server.faults.dropAfterNextBalance = true;
    await expectConnectorError(h.connector.balanceOperation(request), "unreachable");
    // The server applied it; the connector did not hear back.
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
    // The tag stays Toolbox's business: the dealer sees the comment.
    expect(deposits[0]?.comment).toBe("Lost answer deposit");
    // And a different request under the same id is refused, even without memory of the first.
    const fresh = h.connectorWith(DEFAULT_MANAGER);
    await fresh.connect();
    const error = await expectConnectorError(fresh.balanceOperation({ ...request, amount: 1 }), "invalidRequest");
    expect(error.message).toMatch(/already used/);
  });
});

describe("trade server targets (server/connectors/target.ts)", () => {
  it("refuses loopback, private, link-local and metadata addresses unless allowed, before connecting", async () => {
    const h = await harness();
    // The protocol server is listening on 127.0.0.1: refused all the same, and the words do not depend on the port.
    const listening = createMt5WebApiConnector({ url: h.server.url, ca: (await testCertificate()).ca, clock: h.clock, credentials: DEFAULT_MANAGER });
    const open = await expectConnectorError(listening.connect(), "invalidRequest");
    const closedPort = createMt5WebApiConnector({ url: "https://127.0.0.1:1", clock: h.clock, credentials: DEFAULT_MANAGER });
    const closed = await expectConnectorError(closedPort.connect(), "invalidRequest");
    expect(open.message).toBe(closed.message);
    expect(open.message).toMatch(/TRADE_SERVER_ALLOWED_TARGETS/);
    expect(h.server.connectionCount).toBe(1); // only the harness's own connector reached it
    for (const url of [
      "https://10.1.2.3:443",
      "https://192.168.0.10:443",
      "https://169.254.169.254:443",
      "https://[::1]:443",
      "https://[fe80::1]:443",
      "https://localhost:443",
    ])
      await expect(checkTarget(new URL(url), NO_INTERNAL_TARGETS), url).rejects.toMatchObject({ code: "invalidRequest" });
    await expect(checkTarget(new URL("https://8.8.8.8:443"), NO_INTERNAL_TARGETS)).resolves.toBeUndefined();
    const allowed = tradeServerTargetPolicy("10.0.0.0/8, mt5.internal");
    await expect(checkTarget(new URL("https://10.1.2.3:443"), allowed)).resolves.toBeUndefined();
    await expect(checkTarget(new URL("https://mt5.internal:443"), allowed)).resolves.toBeUndefined();
    await expect(checkTarget(new URL("https://192.168.0.10:443"), allowed)).rejects.toMatchObject({ code: "invalidRequest" });
    expect(() => tradeServerTargetPolicy("not a host!")).toThrow(/TRADE_SERVER_ALLOWED_TARGETS/);
  });
});
