/**
 * "Your server" for Match-Trader through the API, against the local Match-Trader Broker API
 * protocol server (REST over HTTPS, the gRPC feed over TLS, its own CA): "Test connection"
 * succeeds, and explains every failure in a dealer's words — a refused API key, a key refused from
 * this IP address, an untrusted certificate, an unreachable server, a rate-limited one, a silent
 * one, an address Toolbox will not reach — plain http:// is refused, and a saved platform connects
 * and mirrors its accounts.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { startMatchTraderServer, type MatchTraderServerHandle } from "../../server/protocolServers/matchTrader/server.ts";
import { describeDb } from "../helpers/db.ts";
import { apiHeaders, newPerson, tokenFactory, type TokenFactory } from "../helpers/tokens.ts";
import { startPlatformsApp, waitFor, type PlatformsApp } from "./platformsHarness.ts";
import { signUp } from "./support/fixtures.ts";

const WRONG = "not-the-match-trader-api-key";
const ACCOUNTS = 30;

describeDb("Match-Trader Broker API platforms", () => {
  let t: PlatformsApp;
  let tokens: TokenFactory;
  let server: MatchTraderServerHandle;
  let org: string;
  let token: string;
  const dealer = newPerson("Dealer");

  beforeAll(async () => {
    server = await startMatchTraderServer({ simulated: { seed: 8, accounts: ACCOUNTS, tradeRate: 0 } });
    t = await startPlatformsApp({ env: { TRADE_SERVER_ALLOWED_TARGETS: "127.0.0.1" } });
    tokens = await tokenFactory(t.ctx);
    org = await signUp(t, tokens, dealer);
    token = await tokens.mint(dealer);
  });
  afterAll(async () => {
    await t?.close();
    await t?.drop();
    await server?.close();
  });

  const post = (url: string, payload: object) => t.call({ method: "POST", url, payload, headers: apiHeaders(token, org) });
  const patch = (url: string, payload: object) => t.call({ method: "PATCH", url, payload, headers: apiHeaders(token, org) });
  const get = (url: string) => t.call({ method: "GET", url, headers: apiHeaders(token, org) });
  const connection = (extra: Record<string, unknown> = {}) => ({
    kind: "matchTraderApi",
    apiUrl: server.url,
    grpcAddress: server.grpcAddress,
    apiKey: server.token,
    caCertificate: server.ca,
    ...extra,
  });
  const test = async (extra: Record<string, unknown> = {}) => {
    const res = await post("/api/tradePlatforms/test-connection", { type: "MatchTrader", connection: connection(extra) });
    expect(res.statusCode, res.body).toBe(200);
    return res.json<{ ok: boolean; code?: string; message?: string; accounts?: number; serverTime?: string }>();
  };

  it("tests the connection for real: the server's clock (UTC) and its accounts", async () => {
    const result = await test();
    expect(result).toMatchObject({ ok: true, accounts: ACCOUNTS });
    expect(result.serverTime).toMatch(/\+00:00$|Z$|UTC/);
  });

  it("explains each failure in a dealer's words", async () => {
    expect(await test({ apiKey: WRONG })).toEqual({
      ok: false,
      code: "credentialsRefused",
      message: "The trading server refused the API key: it is wrong, expired or revoked. Check it in the broker's Match-Trader admin.",
    });

    server.faults.forbid(true);
    try {
      const forbidden = await test();
      expect(forbidden).toMatchObject({ ok: false, code: "credentialsRefused" });
      expect(forbidden.message).toMatch(/Toolbox's IP address is not on the key's whitelist/);
    } finally {
      server.faults.restore();
    }

    const untrusted = await test({ caCertificate: undefined });
    expect(untrusted).toMatchObject({ ok: false, code: "unreachable" });
    expect(untrusted.message).toMatch(/certificate is not trusted/);

    const closedPort = await test({ apiUrl: "https://127.0.0.1:1", grpcAddress: "127.0.0.1:1" });
    expect(closedPort).toEqual({
      ok: false,
      code: "unreachable",
      message: "Toolbox could not reach the server. Check the address and port, and that the server is running and accepts connections from Toolbox.",
    });

    const before = server.stats.requests;
    for (const internal of [{ apiUrl: "https://10.20.30.40" }, { grpcAddress: "169.254.169.254:443" }]) {
      const refused = await test(internal);
      expect(refused).toMatchObject({ ok: false, code: "invalidRequest" });
      expect(refused.message).toMatch(/does not connect to this address.*TRADE_SERVER_ALLOWED_TARGETS/);
    }
    // Refused before any packet: not even the allowed REST half was asked.
    expect(server.stats.requests).toBe(before);

    server.faults.rateLimit(0);
    try {
      const limited = await test();
      expect(limited).toMatchObject({ ok: false, code: "rateLimited" });
      expect(limited.message).toMatch(/limiting requests with this API key \(500 a minute/);
    } finally {
      server.faults.restore();
    }

    server.faults.slowAnswers(5_000);
    try {
      const silent = await test();
      expect(silent).toMatchObject({ ok: false, code: "timeout" });
      expect(silent.message).toMatch(/did not answer within 1.5 seconds/);
    } finally {
      server.faults.restore();
    }

    const everything = [...t.bodies, ...t.logs].join("\n");
    expect(everything).not.toContain(WRONG);
    expect(everything).not.toContain(server.token);
  });

  it("refuses plain http:// before anything is tried: the API key is never sent in the clear", async () => {
    const plain = await post("/api/tradePlatforms/test-connection", {
      type: "MatchTrader",
      connection: connection({ apiUrl: server.url.replace("https:", "http:") }),
    });
    expect(plain.statusCode).toBe(400);
    expect(plain.json<{ message: string }>().message).toMatch(/API URL must be an https:\/\/ URL/);
    const badFeed = await post("/api/tradePlatforms/test-connection", { type: "MatchTrader", connection: connection({ grpcAddress: "not a feed" }) });
    expect(badFeed.statusCode).toBe(400);
    expect(badFeed.json<{ message: string }>().message).toMatch(/GRPC address must be host:port/);
  });

  it("saves the server, connects it, and shows its accounts; the key is asked again for another feed address", async () => {
    const created = await post("/api/tradePlatforms", { type: "MatchTrader", name: "Broker Match-Trader", timeZone: "UTC", connection: connection() });
    expect(created.statusCode, created.body).toBe(201);
    const platform = created.json<{ id: string; connection: Record<string, unknown> }>();
    expect(platform.connection).toEqual({
      kind: "matchTraderApi",
      apiUrl: server.url,
      grpcAddress: server.grpcAddress,
      caCertificate: server.ca,
      hasSecret: true,
    });
    expect(JSON.stringify(platform)).not.toContain(server.token);
    await waitFor(
      async () => (await get(`/api/tradePlatforms/${platform.id}`)).json<{ state: string }>().state === "connected",
      "the Match-Trader platform to connect",
    );
    const listed = await waitFor(async () => {
      const page = (await get(`/api/accounts?platformId=${platform.id}&limit=100`)).json<{ items: { login: string }[]; total: number }>();
      return page.total === ACCOUNTS ? page : undefined;
    }, "the accounts of the Match-Trader server in the mirror");
    const logins = server.simulated.engine
      .listAccounts(null, 100, null)
      .map((a) => a.login)
      .sort();
    expect(listed.items.map((a) => a.login).sort()).toEqual(logins);

    // The stored key goes only to the server it was given for: a new feed address needs it typed again.
    const { apiKey: _key, ...withoutKey } = connection({ grpcAddress: "feed.example.com:443" });
    const moved = await patch(`/api/tradePlatforms/${platform.id}`, { connection: withoutKey });
    expect(moved.statusCode).toBe(400);
    expect(moved.json<{ message: string }>().message).toMatch(/Enter the API key again/);
  });
});
