/**
 * The OpenAPI document as the brokers' developers use it (issue 30): the document the real app
 * serves passes Redocly's recommended rules with no error, every operation has a stable
 * operationId and documents a success and a refusal, and `servers` names PUBLIC_URL. Then a typed
 * client is generated from it with openapi-typescript, typechecked with the TypeScript compiler,
 * and run with openapi-fetch as an API client would: list the accounts, read one, a deposit with
 * an Idempotency-Key (and its replay).
 */
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { createConfig, lintFromString } from "@redocly/openapi-core";
import openapiTS, { astToString } from "openapi-typescript";
import ts from "typescript";
import { afterAll, beforeAll, expect, it } from "vitest";
import { API_RESOURCE } from "../../server/config.ts";
import { accountsMirrorOf } from "../../server/modules/accounts/mirror/plugin.ts";
import { describeDb } from "../helpers/db.ts";
import { createTestApp, type TestApp } from "../helpers/testApp.ts";
import { apiHeaders, newPerson, tokenFactory, type TokenFactory } from "../helpers/tokens.ts";
import { signUp } from "./support/fixtures.ts";

const PUBLIC_URL = "https://toolbox.broker.test";
const METHODS = ["get", "put", "post", "delete", "patch", "head", "options"];

/**
 * What a broker's developer writes against the generated types (typechecked by the test, then run).
 * A wrong path, parameter or field here is a type error.
 */
const BROKER_SCRIPT = `
import createClient from "openapi-fetch";
import type { paths } from "./schema.ts";

export async function brokerScript(o: { baseUrl: string; token: string; organizationId: string; fetch: typeof fetch; idempotencyKey: string }) {
  const api = createClient<paths>({ baseUrl: o.baseUrl, fetch: o.fetch, headers: { Authorization: \`Bearer \${o.token}\`, OrganizationId: o.organizationId } });
  const list = await api.GET("/api/accounts", { params: { query: { limit: 5, sort: "login", order: "asc" } } });
  if (!list.data) throw new Error(\`list: \${list.response.status}\`);
  const first = list.data.items[0];
  if (!first) throw new Error("no account");
  const path = { platformId: first.platformId, login: first.login };
  const one = await api.GET("/api/accounts/{platformId}/{login}", { params: { path } });
  if (!one.data) throw new Error(\`read: \${one.response.status}\`);
  const live: boolean = one.data.live;
  const body = { type: "deposit" as const, amount: "10.00", comment: "Generated client" };
  const deposit = await api.POST("/api/accounts/{platformId}/{login}/balance-operations", {
    params: { path, header: { "idempotency-key": o.idempotencyKey } },
    body,
  });
  const replay = await api.POST("/api/accounts/{platformId}/{login}/balance-operations", {
    params: { path, header: { "idempotency-key": o.idempotencyKey } },
    body,
  });
  const refused = await api.POST("/api/accounts/{platformId}/{login}/balance-operations", {
    params: { path, header: { "idempotency-key": "short" } },
    body,
  });
  const message: string | undefined = refused.error?.message;
  return {
    total: list.data.total,
    listed: list.data.items,
    read: { ...one.data, live },
    deposit: { status: deposit.response.status, body: deposit.data },
    replay: { status: replay.response.status, body: replay.data, replayed: replay.response.headers.get("idempotent-replayed") },
    refusal: { status: refused.response.status, message },
  };
}
`;

interface BrokerOptions {
  baseUrl: string;
  token: string;
  organizationId: string;
  fetch: typeof fetch;
  idempotencyKey: string;
}
interface BrokerResult {
  total: number;
  listed: { login: string }[];
  read: Record<string, unknown>;
  deposit: { status: number; body: unknown };
  replay: { status: number; body: unknown; replayed: string | null };
  refusal: { status: number; message?: string };
}

interface Operation {
  operationId?: string;
  responses?: Record<string, unknown>;
}

describeDb("The OpenAPI document", () => {
  let t: TestApp;
  let tokens: TokenFactory;
  let doc: { servers?: { url: string }[]; paths: Record<string, Record<string, Operation>> };
  let source: string;
  const admin = newPerson("Admin Ada");
  let org: string;
  let platformId: string;

  beforeAll(async () => {
    t = await createTestApp({ PUBLIC_URL });
    tokens = await tokenFactory(t.ctx);
    org = await signUp(t, tokens, admin);
    const res = await t.app.inject({
      method: "POST",
      url: "/api/tradePlatforms",
      headers: apiHeaders(await tokens.mint(admin), org),
      payload: { type: "MT5", name: "Sim MT5", timeZone: "UTC", connection: { kind: "simulated", accounts: 12, tradeRate: 0, seed: 7 } },
    });
    expect(res.statusCode, res.body).toBe(201);
    platformId = res.json().id;
    await accountsMirrorOf(t.ctx)!.whenSynced(platformId, 30_000);
    const served = await t.app.inject({ url: "/api/docs/json" });
    expect(served.statusCode).toBe(200);
    source = served.body;
    doc = JSON.parse(source);
  });
  afterAll(() => t?.close());

  const operations = () =>
    Object.entries(doc.paths).flatMap(([url, item]) =>
      Object.entries(item)
        .filter(([method]) => METHODS.includes(method))
        .map(([method, op]) => ({ name: `${method.toUpperCase()} ${url}`, op })),
    );

  it("passes Redocly's recommended rules with no error", async () => {
    const config = await createConfig({ extends: ["recommended"] });
    const problems = await lintFromString({ source, absoluteRef: `${PUBLIC_URL}/api/docs/json`, config });
    const errors = problems.filter((p) => p.severity === "error").map((p) => `${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`);
    expect(errors).toEqual([]);
  });

  it("names PUBLIC_URL as its server; every operation has a unique operationId, a success and a refusal", () => {
    expect(doc.servers?.map((s) => s.url)).toEqual([PUBLIC_URL]);
    const all = operations();
    expect(all.length).toBeGreaterThan(80);
    const ids = all.map(({ op }) => op.operationId);
    expect(ids.filter((id) => !id)).toEqual([]);
    expect(new Set(ids).size).toBe(ids.length);
    const lacking = all.filter(({ op }) => {
      const codes = Object.keys(op.responses ?? {});
      return !codes.some((c) => c.startsWith("2")) || !codes.some((c) => c.startsWith("4"));
    });
    expect(lacking.map((o) => o.name)).toEqual([]);
    // Stable: derived from the method and the path.
    expect(doc.paths["/api/accounts"]!.get!.operationId).toBe("getAccounts");
    expect(doc.paths["/api/accounts/{platformId}/{login}/balance-operations"]!.post!.operationId).toBe("postAccountsByPlatformIdByLoginBalanceOperations");
  });

  it("generates a typed client (openapi-typescript + openapi-fetch) that typechecks and works for an API client", async () => {
    // Where the generated files go: under the project, so that they resolve openapi-fetch as a
    // broker's project would from its node_modules (test-results/ is not committed).
    const dir = path.join(process.cwd(), "test-results", `openapi-client-${crypto.randomUUID()}`);
    fs.mkdirSync(dir, { recursive: true });
    try {
      fs.writeFileSync(path.join(dir, "schema.ts"), astToString(await openapiTS(source)));
      fs.writeFileSync(path.join(dir, "broker.ts"), BROKER_SCRIPT);

      // The typecheck is part of the test: the generated types and the script that uses them.
      const program = ts.createProgram([path.join(dir, "broker.ts")], {
        strict: true,
        noEmit: true,
        target: ts.ScriptTarget.ES2022,
        module: ts.ModuleKind.ESNext,
        moduleResolution: ts.ModuleResolutionKind.Bundler,
        allowImportingTsExtensions: true,
        lib: ["lib.es2023.d.ts", "lib.dom.d.ts", "lib.dom.iterable.d.ts"],
        types: [],
        skipLibCheck: true,
        noUncheckedIndexedAccess: true,
      });
      const diagnostics = ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"));
      expect(diagnostics).toEqual([]);

      // An API client with users read and money, its token from the provider's token endpoint.
      const created = await t.app.inject({
        method: "POST",
        url: "/api/organization/api-clients",
        headers: apiHeaders(await tokens.mint(admin), org),
        payload: { name: "Broker's back office", permissions: { users: ["read", "money"] } },
      });
      expect(created.statusCode, created.body).toBe(201);
      const { clientId, clientSecret } = created.json();
      const tokenRes = await t.app.inject({
        method: "POST",
        url: "/oidc/token",
        headers: {
          "content-type": "application/x-www-form-urlencoded",
          authorization: `Basic ${Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(clientSecret)}`).toString("base64")}`,
        },
        payload: new URLSearchParams({ grant_type: "client_credentials", resource: API_RESOURCE }).toString(),
      });
      expect(tokenRes.statusCode, tokenRes.body).toBe(200);

      // The client's requests reach the real app (no network in tests): a fetch over inject.
      const viaInject = async (input: Request) => {
        const url = new URL(input.url);
        expect(url.origin).toBe(PUBLIC_URL);
        const body = input.body ? await input.text() : undefined;
        const res = await t.app.inject({
          method: input.method as "GET",
          url: url.pathname + url.search,
          headers: Object.fromEntries(input.headers),
          ...(body ? { payload: body } : {}),
        });
        return new Response(res.statusCode === 204 ? null : new Uint8Array(res.rawPayload), {
          status: res.statusCode,
          headers: Object.entries(res.headers).map(([k, v]) => [k, String(v)] as [string, string]),
        });
      };
      const { brokerScript } = (await import(path.join(dir, "broker.ts"))) as { brokerScript: (o: BrokerOptions) => Promise<BrokerResult> };
      const out = await brokerScript({
        baseUrl: doc.servers![0]!.url,
        token: tokenRes.json().access_token,
        organizationId: org,
        fetch: viaInject as typeof fetch,
        idempotencyKey: crypto.randomUUID(),
      });
      expect(out.total).toBe(12);
      expect(out.listed).toHaveLength(5);
      expect(out.read).toMatchObject({ platformId, login: out.listed[0]!.login, live: expect.any(Boolean) });
      expect(out.deposit).toMatchObject({ status: 201, body: { status: "done", type: "deposit", amount: "10.00" } });
      // The same key again: the first answer, no money moved twice.
      expect(out.replay.status).toBe(201);
      expect(out.replay.replayed).toBe("true");
      expect(out.replay.body).toEqual(out.deposit.body);
      expect(out.refusal).toMatchObject({ status: 400, message: expect.stringMatching(/Idempotency-Key/) });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
