// @vitest-environment node
/**
 * The server's layers as lint rules (eslint.config.js, docs/architecture.md "Layers"): the project's
 * own ESLint configuration, through ESLint's Node API, on small snippets placed at paths inside the
 * layers. Each rule refuses an import that breaks the graph with its message, and lets the allowed
 * ones through; the cycle rule finds a cycle through real files. `npm run lint` on the tree itself
 * is the proof that the tree keeps to them.
 */
import { fileURLToPath } from "node:url";
import { ESLint } from "eslint";
import { beforeAll, describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../..", import.meta.url));

let eslint: ESLint;
beforeAll(() => {
  eslint = new ESLint({
    cwd: root,
    // Only the rules under test: the type-checked ones need the files to exist in the TypeScript
    // project, and are the slow part.
    ruleFilter: ({ ruleId }) => ruleId === "no-restricted-imports" || ruleId === "import-x/no-cycle",
    overrideConfig: { languageOptions: { parserOptions: { projectService: false, project: null } } },
  });
});

/** The messages ESLint gives `code` at `filePath`, as "rule: message". */
async function lint(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath });
  return (result?.messages ?? []).map((m) => `${m.ruleId ?? "(parser)"}: ${m.message}`);
}

const imports = (from: string) => `import { x } from "${from}";\nexport const y = x;\n`;
const importsType = (from: string) => `import type { X } from "${from}";\nexport type Y = X;\n`;

// A long timeout: on a busy two-core machine, loading the configuration and parsing the files the
// cycle rule follows takes seconds.
const T = 60_000;

describe("server layers", () => {
  it(
    "connectors know nothing of modules, events, idp, http or streams",
    async () => {
      const refused = /no-restricted-imports: .*server\/connectors\/ is the lowest trading layer/;
      for (const [file, from] of [
        ["server/connectors/x.ts", "../modules/audit/record.ts"],
        ["server/connectors/x.ts", "../events/bus.ts"],
        ["server/connectors/x.ts", "../http/errors.ts"],
        ["server/connectors/x.ts", "../idp/people.ts"],
        ["server/connectors/x.ts", "../streams/sse.ts"],
        ["server/connectors/mt5/x.ts", "../../modules/audit/record.ts"],
        ["server/connectors/mt5/wire/x.ts", "../../../events/bus.ts"],
        ["server/connectors/mt5/x.ts", "../../../server/modules/audit/record.ts"],
      ]) {
        expect(await lint(file!, imports(from!)), `${file} → ${from}`).toEqual([expect.stringMatching(refused)]);
      }
      expect(await lint("server/connectors/x.ts", importsType("../modules/tradePlatforms/runtime/types.ts"))).toEqual([expect.stringMatching(refused)]);
      // Allowed: its own folders (server/connectors/events/ is the connectors' own), the layers below.
      expect(await lint("server/connectors/mt5/x.ts", imports("../events/types.ts"))).toEqual([]);
      expect(await lint("server/connectors/x.ts", imports("../net/targets.ts"))).toEqual([]);
      expect(await lint("server/connectors/x.ts", imports("../../core/trading/index.ts"))).toEqual([]);
    },
    T,
  );

  it(
    "events know nothing of modules, idp or http",
    async () => {
      const refused = /no-restricted-imports: .*server\/events\/ sits below the modules/;
      expect(await lint("server/events/x.ts", importsType("../modules/tradePlatforms/runtime/types.ts"))).toEqual([expect.stringMatching(refused)]);
      expect(await lint("server/events/nats/x.ts", imports("../../modules/audit/record.ts"))).toEqual([expect.stringMatching(refused)]);
      expect(await lint("server/events/x.ts", imports("../http/errors.ts"))).toEqual([expect.stringMatching(refused)]);
      expect(await lint("server/events/x.ts", imports("../idp/people.ts"))).toEqual([expect.stringMatching(refused)]);
      expect(await lint("server/events/x.ts", imports("../connectors/connector.ts"))).toEqual([]);
    },
    T,
  );

  it(
    "modules do not import http",
    async () => {
      const refused = /no-restricted-imports: .*server\/modules\/ never imports server\/http\//;
      expect(await lint("server/modules/index.ts", imports("../http/auth/guard.ts"))).toEqual([expect.stringMatching(refused)]);
      expect(await lint("server/modules/logs/x.ts", imports("../../http/sse.ts"))).toEqual([expect.stringMatching(refused)]);
      expect(await lint("server/modules/security/x.ts", imports("../../http/errors.ts"))).toEqual([expect.stringMatching(refused)]);
      expect(await lint("server/modules/accounts/mirror/x.ts", imports("../../../http/auth/docs.ts"))).toEqual([expect.stringMatching(refused)]);
      // Allowed: what sits below them, and the identity provider, their peer.
      for (const from of ["../../streams/sse.ts", "../../events/types.ts", "../../connectors/connector.ts", "../../idp/people.ts", "../../errors.ts"]) {
        expect(await lint("server/modules/logs/x.ts", imports(from)), from).toEqual([]);
      }
    },
    T,
  );

  it(
    "the identity provider knows nothing of connectors or events, and of http only the token claims and request logging",
    async () => {
      const refused = /no-restricted-imports: .*server\/idp\/ is a peer of the modules/;
      expect(await lint("server/idp/x.ts", imports("../http/auth/guard.ts"))).toEqual([expect.stringMatching(refused)]);
      expect(await lint("server/idp/x.ts", imports("../http/app.ts"))).toEqual([expect.stringMatching(refused)]);
      expect(await lint("server/idp/x.ts", imports("../events/bus.ts"))).toEqual([expect.stringMatching(refused)]);
      expect(await lint("server/idp/pages/x.ts", imports("../../connectors/connector.ts"))).toEqual([expect.stringMatching(refused)]);
      for (const from of ["../http/auth/tokens.ts", "../http/logging.ts", "../modules/audit/signIns.ts", "../db/client.ts"]) {
        expect(await lint("server/idp/x.ts", imports(from)), from).toEqual([]);
      }
    },
    T,
  );

  it(
    "the plumbing (db, secrets, net, mail, streams) knows nothing of the layers above it",
    async () => {
      const refused = /no-restricted-imports: .*server\/\{db,secrets,net,mail,streams\}\/ are the plumbing/;
      expect(await lint("server/db/x.ts", imports("../modules/audit/record.ts"))).toEqual([expect.stringMatching(refused)]);
      expect(await lint("server/db/tables/x.ts", importsType("../../connectors/connector.ts"))).toEqual([expect.stringMatching(refused)]);
      expect(await lint("server/streams/x.ts", imports("../http/auth/streamAccess.ts"))).toEqual([expect.stringMatching(refused)]);
      expect(await lint("server/net/x.ts", imports("../events/bus.ts"))).toEqual([expect.stringMatching(refused)]);
    },
    T,
  );

  it(
    "the protocol servers (vendors' servers) know nothing of modules, events, idp, http, web, streams or the database",
    async () => {
      const refused = /no-restricted-imports: .*server\/protocolServers\/ are the vendors' servers/;
      for (const [file, from] of [
        ["server/protocolServers/x.ts", "../modules/audit/record.ts"],
        ["server/protocolServers/x.ts", "../events/bus.ts"],
        ["server/protocolServers/x.ts", "../idp/people.ts"],
        ["server/protocolServers/x.ts", "../http/errors.ts"],
        ["server/protocolServers/x.ts", "../web/index.ts"],
        ["server/protocolServers/x.ts", "../streams/sse.ts"],
        ["server/protocolServers/x.ts", "../db/client.ts"],
        ["server/protocolServers/mt5WebApi/x.ts", "../../db/schema.ts"],
        ["server/protocolServers/mt5WebApi/x.ts", "../../secrets/cipher.ts"],
        ["server/protocolServers/common/x.ts", "../../mail/mailer.ts"],
        ["server/protocolServers/mt4Gateway/x.ts", "../../../server/modules/audit/record.ts"],
      ]) {
        expect(await lint(file!, imports(from!)), `${file} → ${from}`).toEqual([expect.stringMatching(refused)]);
      }
      // Allowed: the vendors' wire formats and the simulated platform, the addresses, core.
      for (const from of ["../../connectors/wire/wire.ts", "../../connectors/simulated/server.ts", "../../net/targets.ts", "../../../core/trading/index.ts"]) {
        expect(await lint("server/protocolServers/mt5WebApi/x.ts", imports(from)), from).toEqual([]);
      }
    },
    T,
  );

  it(
    "the web pages' host knows nothing of connectors, events, modules, idp, http, streams, the database or the protocol servers",
    async () => {
      const refused = /no-restricted-imports: .*server\/web\/ serves the app's pages/;
      for (const from of [
        "../connectors/connector.ts",
        "../events/bus.ts",
        "../modules/audit/record.ts",
        "../idp/people.ts",
        "../http/errors.ts",
        "../streams/sse.ts",
        "../db/client.ts",
        "../secrets/cipher.ts",
        "../mail/mailer.ts",
        "../protocolServers/registry.ts",
        "../../server/modules/members/service.ts",
      ]) {
        expect(await lint("server/web/x.ts", imports(from)), from).toEqual([expect.stringMatching(refused)]);
      }
      for (const from of ["../config.ts", "../context.ts", "./csp.ts", "../../core/loadContext.ts"]) {
        expect(await lint("server/web/x.ts", imports(from)), from).toEqual([]);
      }
    },
    T,
  );

  it(
    "no import cycles: a file importing what imports it is refused",
    async () => {
      // server/quotas.ts imports server/errors.ts: errors.ts importing it back closes a cycle.
      expect(await lint("server/errors.ts", imports("./quotas.ts"))).toEqual(["import-x/no-cycle: Dependency cycle detected"]);
      // Through a longer route: record.ts is imported by the customers' writes it would import.
      expect(await lint("server/modules/audit/record.ts", imports("../customers/writes.ts"))).toEqual([
        expect.stringMatching(/^import-x\/no-cycle: Dependency cycle/),
      ]);
      expect(await lint("server/errors.ts", imports("./connectors/errors.ts"))).toEqual([]);
    },
    T,
  );
});
