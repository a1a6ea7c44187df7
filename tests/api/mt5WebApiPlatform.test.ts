/**
 * "Your server" for MetaTrader 5 through the API, against the local MT5 Web API protocol server
 * (HTTPS, its own CA): "Test connection" succeeds, and explains every failure in a dealer's words
 * — refused credentials, a manager without rights (retcode 8), an IP not whitelisted (1012), an
 * untrusted certificate, an unreachable server, a silent one, an address Toolbox will not reach —
 * and a saved platform connects and mirrors its accounts.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { DEFAULT_MANAGER, SimulatedServer } from "../../server/connectors/simulated/server.ts";
import { selfSignedCertificate, type TestCertificate } from "../../server/protocolServers/certificates.ts";
import { MT5_WEB_API_RETCODE, Mt5WebApiServer } from "../../server/protocolServers/mt5WebApi/server.ts";
import { describeDb } from "../helpers/db.ts";
import { apiHeaders, newPerson, tokenFactory, type TokenFactory } from "../helpers/tokens.ts";
import { startPlatformsApp, waitFor, type PlatformsApp } from "./platformsHarness.ts";
import { signUp } from "./support/fixtures.ts";

const WRONG = "Wr0ng-Manager-Pass";

describeDb("MT5 Web API platforms", () => {
  let t: PlatformsApp;
  let tokens: TokenFactory;
  let tls: TestCertificate;
  let simulated: SimulatedServer;
  let server: Mt5WebApiServer;
  let address: string;
  let org: string;
  let token: string;
  const dealer = newPerson("Dealer");

  beforeAll(async () => {
    tls = await selfSignedCertificate();
    simulated = new SimulatedServer({ platform: "MT5", seed: 5, accounts: 30, tradeRate: 0 });
    simulated.start();
    server = new Mt5WebApiServer({ simulated, tls });
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
    kind: "mt5WebApi",
    address,
    login: DEFAULT_MANAGER.login,
    password: DEFAULT_MANAGER.password,
    caCertificate: tls.ca,
    ...extra,
  });
  const test = async (extra: Record<string, unknown> = {}) => {
    const res = await post("/api/tradePlatforms/test-connection", { type: "MT5", connection: connection(extra) });
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

    server.faults.authRetcode = MT5_WEB_API_RETCODE.noPermissions;
    const noRights = await test();
    expect(noRights).toMatchObject({ ok: false, code: "credentialsRefused" });
    expect(noRights.message).toMatch(/lacks the rights Toolbox needs \(MT5 retcode 8\)/);
    server.faults.authRetcode = MT5_WEB_API_RETCODE.ipBlocked;
    const blocked = await test();
    expect(blocked).toMatchObject({ ok: false, code: "credentialsRefused" });
    expect(blocked.message).toMatch(/not on the manager's whitelist \(MT5 retcode 1012\)/);
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
    // 127.0.0.1 is allowed here; its IPv4-compatible IPv6 form is not that address, and is refused.
    const compatible = await test({ address: `[::127.0.0.1]:${address.split(":")[1]}` });
    expect(compatible).toMatchObject({ ok: false, code: "invalidRequest" });
    expect(compatible.message).toMatch(/does not connect to this address/);

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
    const created = await post("/api/tradePlatforms", { type: "MT5", name: "Broker MT5", timeZone: "Europe/Athens", connection: connection() });
    expect(created.statusCode, created.body).toBe(201);
    const platform = created.json<{ id: string; connection: Record<string, unknown> }>();
    expect(platform.connection).toMatchObject({ kind: "mt5WebApi", address, login: DEFAULT_MANAGER.login, hasSecret: true, caCertificate: tls.ca });
    expect(JSON.stringify(platform)).not.toContain(DEFAULT_MANAGER.password);
    await waitFor(async () => (await get(`/api/tradePlatforms/${platform.id}`)).json<{ state: string }>().state === "connected", "the MT5 platform to connect");
    const listed = await waitFor(async () => {
      const page = (await get(`/api/accounts?platformId=${platform.id}&limit=100`)).json<{ items: { login: string }[]; total: number }>();
      return page.total === 30 ? page : undefined;
    }, "the accounts of the MT5 server in the mirror");
    const logins = simulated.engine
      .listAccounts(null, 100, null)
      .map((a) => a.login)
      .sort();
    expect(listed.items.map((a) => a.login).sort()).toEqual(logins);
  });
  it("connects a plain MT5 Web API too (no Toolbox plugin, as a real server today) and mirrors its accounts", async () => {
    const plainSimulated = new SimulatedServer({ platform: "MT5", seed: 6, accounts: 12, tradeRate: 0 });
    plainSimulated.start();
    const plain = new Mt5WebApiServer({ simulated: plainSimulated, tls, toolboxPlugin: false });
    const plainAddress = `127.0.0.1:${(await plain.listen()).port}`;
    try {
      const tried = await post("/api/tradePlatforms/test-connection", { type: "MT5", connection: connection({ address: plainAddress }) });
      expect(tried.json()).toMatchObject({ ok: true, accounts: 12 });
      const created = await post("/api/tradePlatforms", {
        type: "MT5",
        name: "Plain MT5",
        timeZone: "Europe/Athens",
        connection: connection({ address: plainAddress }),
      });
      expect(created.statusCode, created.body).toBe(201);
      const { id } = created.json<{ id: string }>();
      await waitFor(async () => (await get(`/api/tradePlatforms/${id}`)).json<{ state: string }>().state === "connected", "the plain MT5 platform to connect");
      await waitFor(async () => {
        const page = (await get(`/api/accounts?platformId=${id}&limit=100`)).json<{ total: number }>();
        return page.total === 12 ? page : undefined;
      }, "the accounts of the plain MT5 server in the mirror");
    } finally {
      await plain.close();
      plainSimulated.stop();
    }
  });
});
