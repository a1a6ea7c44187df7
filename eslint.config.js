// ESLint for the whole tree: typescript-eslint with type information, React hooks and jsx-a11y
// for the app, and the import boundaries of docs/architecture.md as lint rules.
// Why this set and the tuned rules: docs/decisions/0030-lint-and-format.md.
import fs from "node:fs";
import { builtinModules } from "node:module";
import path from "node:path";
import js from "@eslint/js";
import { defineConfig, globalIgnores } from "eslint/config";
import { createNodeResolver, importX } from "eslint-plugin-import-x";
import jsxA11y from "eslint-plugin-jsx-a11y";
import reactHooks from "eslint-plugin-react-hooks";
import globals from "globals";
import tseslint from "typescript-eslint";

const root = import.meta.dirname;

// ---------------------------------------------------------------------------------------------
// Import boundaries (docs/architecture.md "Folders"). `no-restricted-imports` sees the import
// string as written, so each rule covers the alias (`~/…`, `@core/…`) and the relative spelling.
// Flat config replaces a rule's options per matching block rather than merging them, so every
// block below lists all the patterns that apply to its files.
// ---------------------------------------------------------------------------------------------

const TS = "{ts,tsx}";
/** A regex fragment: exactly `n` times `../`. */
const up = (n) => `(\\.\\./){${n}}`;

const CORE_MESSAGE =
  "core/ is pure rules shared by the app (browser) and the server: it imports nothing from app/, server/, " +
  "React, Fastify, a database driver or Node built-ins. Move the dependency out, or pass it in.";
const corePatterns = [
  { regex: "^~/", message: CORE_MESSAGE },
  { regex: "^(\\.\\./)+(app|server)(/|$)", message: CORE_MESSAGE },
  {
    regex: `^(react|react-dom|react-router|fastify|@fastify/[^/]+|pg|@electric-sql/pglite|drizzle-orm|drizzle-kit|oidc-provider)(/.*)?$`,
    message: CORE_MESSAGE,
  },
  { regex: `^(node:.*|(${builtinModules.filter((m) => !m.startsWith("_")).join("|")})(/.*)?)$`, message: CORE_MESSAGE },
];

const APP_MESSAGE =
  "app/ never imports server/ or a server-only package: share the type or rule through core/ (`@core/…`), " + "or reach the server through its API (app/api).";
const appPatterns = [
  { regex: "^(\\.\\./)+server(/|$)", message: APP_MESSAGE },
  { regex: "^(fastify|@fastify/[^/]+|pg|@electric-sql/pglite|drizzle-orm|drizzle-kit|oidc-provider)(/.*)?$", message: APP_MESSAGE },
];

const UI_MESSAGE =
  "app/ui/ is the design system: it imports no feature (`~/features/…`) and not the profile store (`~/profile/…`). " +
  "Pass the data in through props, or move the piece into the feature that owns it.";
const uiPatterns = [
  { regex: "^~/(features|profile)(/|$)", message: UI_MESSAGE },
  { regex: "^(\\.\\./)+(features|profile)(/|$)", message: UI_MESSAGE },
];

const FEATURE_MESSAGE =
  "Features reach each other only through their index: import `~/features/<name>` (its index.ts), " +
  "not a file inside it. Export what others need from that index.";
/** `<other feature>/<a file inside it>`: any feature but `own`, and any path but its index. */
const deepInOtherFeature = (own) => `(?!${own}/|\\.\\.?/)[^/]+/(?!index(\\.tsx?)?$).+`;

const featuresDir = path.join(root, "app/features");
const features = fs.existsSync(featuresDir)
  ? fs
      .readdirSync(featuresDir, { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => d.name)
  : [];
/** Deepest folder nesting inside any feature (0 = files directly in app/features/<name>/). */
const featureDepth = Math.max(
  0,
  ...features.flatMap((f) =>
    fs
      .readdirSync(path.join(featuresDir, f), { recursive: true, withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => path.relative(path.join(featuresDir, f), path.join(d.parentPath, d.name)).split(path.sep).length),
  ),
);

/** One block per feature and folder depth: a relative path's meaning depends on both. */
const featureBlocks = features.flatMap((name) => {
  const own = name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return Array.from({ length: featureDepth + 1 }, (_, depth) => ({
    name: `toolbox/boundaries/features/${name}/depth-${depth}`,
    files: [`app/features/${name}/${"*/".repeat(depth)}*.${TS}`],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            ...appPatterns,
            { regex: `^~/features/${deepInOtherFeature(own)}`, message: FEATURE_MESSAGE },
            // `../other/x` from the feature's top, `../../other/x` one folder down, …
            { regex: `^${up(depth + 1)}${deepInOtherFeature(own)}`, message: FEATURE_MESSAGE },
            // … or the long way round through app/: `../../features/other/x`.
            { regex: `^${up(depth + 2)}features/${deepInOtherFeature(own)}`, message: FEATURE_MESSAGE },
          ],
        },
      ],
    },
  }));
});

// The server's layers (docs/architecture.md "Layers"). Each rule names the folders under server/
// that a layer may not import. A relative path's meaning depends on how deep the file sits, and a
// layer may hold a folder with another layer's name (server/connectors/events/), so, as for the
// features, there is one block per layer and folder depth, and a pattern matches exactly the
// `../`s that lead back to server/ (or one more, and `server/` spelled out).

const CONNECTORS_MESSAGE =
  "server/connectors/ is the lowest trading layer: it knows nothing of modules/, events/, idp/, http/ or streams/. " +
  "Pass what it needs in (an interface, a callback), or move the shared piece down (server/net/, server/db/, core/).";
const EVENTS_MESSAGE =
  "server/events/ sits below the modules: it knows nothing of modules/, idp/ or http/. Declare the shared type beside " +
  "the events (server/events/types.ts) and let the module import it from there.";
const MODULES_MESSAGE =
  "server/modules/ never imports server/http/ (the HTTP layer composes the modules, not the other way round): " +
  "register it in server/http/app.ts, throw a domain error (server/errors.ts), use server/streams/ for a live stream, " +
  "or share the schema through core/schemas/.";
const IDP_MESSAGE =
  "server/idp/ is a peer of the modules, above connectors and events: it knows nothing of connectors/ or events/, and " +
  "of server/http/ only the token claim names (http/auth/tokens.ts) and request logging (http/logging.ts).";
const PROTOCOL_SERVERS_MESSAGE =
  "server/protocolServers/ are the vendors' servers Toolbox talks to, run locally (npm run simulator, the tests): they " +
  "know nothing of modules/, events/, idp/, http/, web/, streams/ or the database (db/, secrets/, mail/). They may use " +
  "the connectors' wire formats and the simulated platform (server/connectors/), as a vendor's server speaks the vendor's format.";
const WEB_MESSAGE =
  "server/web/ serves the app's pages (React Router behind Fastify): it knows nothing of connectors/, events/, modules/, " +
  "idp/, http/, streams/ or the database (db/, secrets/, mail/). A page reaches the server through the API like any " +
  "browser; what the page needs at render time comes from server/config.ts (core/publicConfig.ts).";
const LOWER_MESSAGE =
  "server/{db,secrets,net,mail,streams}/ are the plumbing every layer uses: they know nothing of connectors/, events/, " +
  "modules/, idp/ or http/. Pass the dependency in.";

/** What each layer of server/ may not import: folder names under server/, as a regex alternation. */
const serverLayers = [
  { layer: "connectors", forbidden: "modules|events|idp|http|streams", message: CONNECTORS_MESSAGE },
  { layer: "events", forbidden: "modules|idp|http", message: EVENTS_MESSAGE },
  { layer: "modules", forbidden: "http", message: MODULES_MESSAGE },
  // idp may use two files of http/ (see IDP_MESSAGE): everything else under http/ is refused.
  { layer: "idp", forbidden: "connectors|events|http(?!/auth/tokens\\.ts$|/logging\\.ts$)", message: IDP_MESSAGE },
  { layer: "protocolServers", forbidden: "modules|events|idp|http|web|streams|db|secrets|mail", message: PROTOCOL_SERVERS_MESSAGE },
  { layer: "web", forbidden: "connectors|events|modules|idp|http|streams|db|secrets|mail|protocolServers", message: WEB_MESSAGE },
  ...["db", "secrets", "net", "mail", "streams"].map((layer) => ({
    layer,
    forbidden: "connectors|events|modules|idp|http",
    message: LOWER_MESSAGE,
  })),
];

/** Deepest folder nesting inside `dir` (0 = files directly in it). */
const depthOf = (dir) =>
  Math.max(
    0,
    ...fs
      .readdirSync(dir, { recursive: true, withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => path.relative(dir, path.join(d.parentPath, d.name)).split(path.sep).length),
  );

const serverBlocks = serverLayers
  .filter(({ layer }) => fs.existsSync(path.join(root, "server", layer)))
  .flatMap(({ layer, forbidden, message }) =>
    Array.from({ length: depthOf(path.join(root, "server", layer)) + 1 }, (_, depth) => ({
      name: `toolbox/boundaries/server/${layer}/depth-${depth}`,
      files: [`server/${layer}/${"*/".repeat(depth)}*.${TS}`],
      rules: {
        "no-restricted-imports": [
          "error",
          {
            patterns: [
              // `../modules/x` from the layer's top, `../../modules/x` one folder down, …
              { regex: `^${up(depth + 1)}(${forbidden})(/|$)`, message },
              // … or the long way round: `../../server/modules/x`.
              { regex: `^${up(depth + 2)}server/(${forbidden})(/|$)`, message },
            ],
          },
        ],
      },
    })),
  );

const boundaries = [
  { name: "toolbox/boundaries/core", files: [`core/**/*.${TS}`], rules: { "no-restricted-imports": ["error", { patterns: corePatterns }] } },
  { name: "toolbox/boundaries/app", files: [`app/**/*.${TS}`], rules: { "no-restricted-imports": ["error", { patterns: appPatterns }] } },
  {
    name: "toolbox/boundaries/app-ui",
    files: [`app/ui/**/*.${TS}`],
    rules: { "no-restricted-imports": ["error", { patterns: [...appPatterns, ...uiPatterns] }] },
  },
  ...featureBlocks,
  ...serverBlocks,
  {
    // No import cycles in server/ or core/ (docs/architecture.md "Layers"): a cycle is two files
    // that can only change together, and hides a layer that points the wrong way. The rule follows
    // value imports (a type-only import is erased at runtime; the layer rules above still refuse
    // one that crosses a layer the wrong way) and not external packages (`ignoreExternal`): on the
    // whole tree it costs a few seconds of a lint run (docs/decisions/0066-server-layers-in-lint.md).
    name: "toolbox/boundaries/no-cycle",
    files: [`{server,core}/**/*.${TS}`],
    plugins: { "import-x": importX },
    settings: {
      "import-x/extensions": [".ts", ".tsx"],
      "import-x/parsers": { "@typescript-eslint/parser": [".ts", ".tsx"] },
      "import-x/resolver-next": [createNodeResolver({ extensions: [".ts", ".tsx"] })],
    },
    rules: { "import-x/no-cycle": ["error", { ignoreExternal: true }] },
  },
];

// ---------------------------------------------------------------------------------------------
// One place for SQL (docs/architecture.md "Where SQL lives"): in server/modules, only a module's
// repository files import drizzle-orm or the schema's tables as values. Type imports stay free (a
// row's type is not a query). This is typescript-eslint's variant of the rule, under its own name,
// so its options never replace the `no-restricted-imports` patterns of the boundaries above, and a
// file may match both.
// ---------------------------------------------------------------------------------------------

const SQL_MESSAGE =
  "SQL lives in the module's repository files (repository.ts, *Repository.ts, repository/): put the query " +
  "there and call it from here; a change of several statements runs in `db.transaction(tx => …)` passing `tx`. " +
  'docs/architecture.md "Where SQL lives".';
const sqlPatterns = [
  { regex: "^drizzle-orm(/.*)?$", message: SQL_MESSAGE, allowTypeImports: true },
  { regex: "^(\\.\\./)+(server/)?db/(schema|tables)(\\.ts)?(/|$)", message: SQL_MESSAGE, allowTypeImports: true },
];
/** Repository files: the one place a module's SQL is written. */
const REPOSITORY_FILES = ["server/modules/**/repository.ts", "server/modules/**/*Repository.ts", "server/modules/**/repository/**"];

const sqlInRepositories = {
  name: "toolbox/sql-in-repositories",
  files: [`server/modules/**/*.${TS}`],
  ignores: REPOSITORY_FILES,
  rules: { "@typescript-eslint/no-restricted-imports": ["error", { patterns: sqlPatterns }] },
};

// ---------------------------------------------------------------------------------------------

export default defineConfig([
  globalIgnores(["build/", "data/", "coverage/", "test-results/", ".react-router/", "scratch/", "server/db/migrations/"]),
  {
    linterOptions: {
      // An eslint-disable comment must name a rule that exists and still fires where it stands.
      reportUnusedDisableDirectives: "error",
    },
  },

  js.configs.recommended,
  {
    files: [`**/*.${TS}`],
    extends: [tseslint.configs.recommendedTypeChecked],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: root },
    },
    rules: {
      // `_`-prefixed parameters and rest siblings are how this code says "deliberately unused".
      "@typescript-eslint/no-unused-vars": [
        "error",
        { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrorsIgnorePattern: "^_", ignoreRestSiblings: true },
      ],
      // Fastify tells a finished plugin or hook from one that will call `done` by its `async`
      // signature, and oidc-provider's callbacks must return promises: an `async` function
      // without `await` is how both are written, so this rule is wrong here.
      "@typescript-eslint/require-await": "off",
      // React ignores what an event handler returns; our async handlers catch and show their own
      // errors. Promises passed where a void callback is expected elsewhere are still refused.
      "@typescript-eslint/no-misused-promises": ["error", { checksVoidReturn: { attributes: false } }],
      // `interface X extends Y {}` is how a module augmentation (Fastify's route config, React
      // Router's load context) adds our fields to a library's type.
      "@typescript-eslint/no-empty-object-type": ["error", { allowInterfaces: "with-single-extends" }],
      // React Router loaders throw `data(…)` and `redirect(…)` (a Response) by design.
      "@typescript-eslint/only-throw-error": [
        "error",
        {
          allow: [
            { from: "package", package: "react-router", name: "DataWithResponseInit" },
            { from: "lib", name: "Response" },
          ],
        },
      ],
    },
  },
  {
    // Test and benchmark code reads API answers through `inject(…).json()`, typed `any` by Fastify;
    // the assertions that follow are the check. Production code keeps these rules.
    files: [`{tests,bench}/**/*.${TS}`],
    rules: {
      "@typescript-eslint/no-unsafe-argument": "off",
      "@typescript-eslint/no-unsafe-assignment": "off",
      "@typescript-eslint/no-unsafe-call": "off",
      "@typescript-eslint/no-unsafe-member-access": "off",
      "@typescript-eslint/no-unsafe-return": "off",
    },
  },
  {
    // Plain JavaScript (this file): no type information to lint with.
    files: ["**/*.{js,mjs,cjs}"],
    extends: [tseslint.configs.disableTypeChecked],
    languageOptions: { globals: globals.node },
  },

  // Where code runs decides which globals exist (TypeScript checks the rest).
  { files: [`app/**/*.${TS}`], languageOptions: { globals: globals.browser } },
  { files: [`{server,scripts,bench,tests}/**/*.${TS}`, `*.config.${TS}`], languageOptions: { globals: globals.node } },

  {
    files: [`app/**/*.${TS}`, `tests/unit/**/*.${TS}`],
    extends: [reactHooks.configs.flat.recommended],
  },
  {
    files: ["**/*.tsx"],
    extends: [jsxA11y.flatConfigs.recommended],
  },

  ...boundaries,
  sqlInRepositories,
]);
