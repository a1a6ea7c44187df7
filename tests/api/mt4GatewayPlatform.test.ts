/**
 * "Your server" for MetaTrader 4 through the API, against the local MT4 manager gateway (HTTPS,
 * its own CA): "Test connection" succeeds, and explains every failure in a dealer's words —
 * refused credentials, a manager without rights (RET_NOT_ENOUGH_RIGHTS), an IP not allowed
 * (RET_SECURITY_SESSION), an untrusted certificate, an unreachable server, a silent one, an
 * address Toolbox will not reach — and a saved platform connects, mirrors its accounts, and
 * deposits through the gateway.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { DEFAULT_MANAGER, SimulatedServer } from "../../server/connectors/simulated/server.ts";
import { selfSignedCertificate, type TestCertificate } from "../../server/protocolServers/certificates.ts";
import { Mt4GatewayServer } from "../../server/protocolServers/mt4Gateway/server.ts";
import { describeDb } from "../helpers/db.ts";
import { apiHeaders, newPerson, tokenFactory, type TokenFactory } from "../helpers/tokens.ts";
import { startPlatformsApp, waitFor, type PlatformsApp } from "./platformsHarness.ts";
import { signUp } from "./support/fixtures.ts";

const WRONG = "Wr0ng-Manager-Pass";

describeDb("MT4 gateway platforms", () => {
  let t: PlatformsApp;
  let tokens: TokenFactory;
  let tls: TestCertificate;
  let simulated: SimulatedServer;
  let server: Mt4GatewayServer;
  let address: string;
  let org: string;
  let token: string;
  const dealer = newPerson("Dealer");

  beforeAll(async () => {
    tls = await selfSignedCertificate();
    simulated = new SimulatedServer({ platform: "MT4", seed: 4, accounts: 30, tradeRate: 0 });
    simulated.start();
    server = new Mt4GatewayServer({ simulated, tls });
    address = `127.0.0.1:${(await server.listen()).port}`;
    t = await startPlatformsApp({ env: { TRADE_SERVER_ALLOWED_TARGETS: "127.0.0.1" } });
    tokens = await tokenFactory(t.ctx);
    org = await signUp(t, tokens, dealer);
    token = await tokens.mint(dealer);
  });
  afterAll(async () => {
    await t?.close();
    await t?.drop();
    await server?.close();
    simulated?.stop();
  });

  const post = (url: string, payload: object) => t.call({ method: "POST", url, payload, headers: apiHeaders(token, org) });
  const get = (url: string) => t.call({ method: "GET", url, headers: apiHeaders(token, org) });
  const connection = (extra: Record<string, unknown> = {}) => ({
    kind: "mt4Gateway",
    address,
    login: DEFAULT_MANAGER.login,
    password: DEFAULT_MANAGER.password,
    caCertificate: tls.ca,
    ...extra,
  });
  const test = async (extra: Record<string, unknown> = {}) => {
    const res = await post("/api/tradePlatforms/test-connection", { type: "MT4", connection: connection(extra) });
    expect(res.statusCode, res.body).toBe(200);
    return res.json<{ ok: boolean; code?: string; message?: string; accounts?: number; serverTime?: string }>();
  };

  it("tests the connection for real: the server's clock in its zone, and its accounts", async () => {
    const result = await test();
    expect(result).toMatchObject({ ok: true, accounts: 30 });
    expect(result.serverTime).toMatch(/\+02:00$/);
  });

  it("explains each failure in a dealer's words", async () => {
    expect(await test({ password: WRONG })).toEqual({
      ok: false,
      code: "credentialsRefused",
      message: "The manager login or password was refused. Check them, and that this manager may connect from Toolbox's address.",
    });

    server.faults.authRet = 7;
    const noRights = await test();
    expect(noRights).toMatchObject({ ok: false, code: "credentialsRefused" });
    expect(noRights.message).toMatch(/lacks the rights Toolbox needs \(MT4 RET_NOT_ENOUGH_RIGHTS\)/);
    server.faults.authRet = 11;
    const blocked = await test();
    expect(blocked).toMatchObject({ ok: false, code: "credentialsRefused" });
    expect(blocked.message).toMatch(/IP is not allowed for this manager \(MT4 RET_SECURITY_SESSION\)/);
    server.faults.restore();

    const untrusted = await test({ caCertificate: undefined });
    expect(untrusted).toMatchObject({ ok: false, code: "unreachable" });
    expect(untrusted.message).toMatch(/certificate is not trusted/);

    const closedPort = await test({ address: "127.0.0.1:1" });
    expect(closedPort).toEqual({
      ok: false,
      code: "unreachable",
      message: "Toolbox could not reach the server. Check the address and port, and that the server is running and accepts connections from Toolbox.",
    });

    const internal = await test({ address: "10.20.30.40:443" });
    expect(internal).toMatchObject({ ok: false, code: "invalidRequest" });
    expect(internal.message).toMatch(/does not connect to this address.*TRADE_SERVER_ALLOWED_TARGETS/);

    simulated.faults.slowAnswers(5_000);
    try {
      const silent = await test();
      expect(silent).toMatchObject({ ok: false, code: "timeout" });
      expect(silent.message).toMatch(/did not answer within 1.5 seconds/);
    } finally {
      simulated.faults.restore();
    }

    const everything = [...t.bodies, ...t.logs].join("\n");
    expect(everything).not.toContain(WRONG);
    expect(everything).not.toContain(DEFAULT_MANAGER.password);
  });

  it("saves the server, connects it, and shows its accounts", async () => {
    const created = await post("/api/tradePlatforms", { type: "MT4", name: "Broker MT4", timeZone: "Europe/Athens", connection: connection() });
    expect(created.statusCode, created.body).toBe(201);
    const platform = created.json<{ id: string; connection: Record<string, unknown> }>();
    expect(platform.connection).toMatchObject({ kind: "mt4Gateway", address, login: DEFAULT_MANAGER.login, hasSecret: true, caCertificate: tls.ca });
    expect(JSON.stringify(platform)).not.toContain(DEFAULT_MANAGER.password);
    await waitFor(async () => (await get(`/api/tradePlatforms/${platform.id}`)).json<{ state: string }>().state === "connected", "the MT4 platform to connect");
    const listed = await waitFor(async () => {
      const page = (await get(`/api/accounts?platformId=${platform.id}&limit=100`)).json<{ items: { login: string }[]; total: number }>();
      return page.total === 30 ? page : undefined;
    }, "the accounts of the MT4 server in the mirror");
    const logins = simulated.engine
      .listAccounts(null, 100, null)
      .map((a) => a.login)
      .sort();
    expect(listed.items.map((a) => a.login).sort()).toEqual(logins);

    // A deposit through the API lands on the server behind the gateway, once, even when repeated.
    const login = logins[0]!;
    const before = simulated.engine.getAccount(login).balance;
    const deposit = () =>
      t.call({
        method: "POST",
        url: `/api/accounts/${platform.id}/${login}/balance-operations`,
        payload: { type: "deposit", amount: "25.50", comment: "Via the gateway" },
        headers: { ...apiHeaders(token, org), "idempotency-key": "mt4-gateway-deposit-1" },
      });
    const first = await deposit();
    expect(first.statusCode, first.body).toBe(201);
    expect((await deposit()).statusCode).toBe(201);
    expect(simulated.engine.getAccount(login).balance).toBe(before + 2_550);
  });
});
