/**
 * `npm run screenshots`: every route of app/routes.ts, signed in as the demo administrator, in light
 * and dark at 1440×900 and on a phone (390×844), saved as PNGs under test-results/screenshots/, and
 * for each route at 1440 px what is cut off (tests/e2e/support/overflow.ts). Toolbox is started the
 * way the browser tests start it (tests/e2e/globalSetup.ts: the production build, PGlite, the
 * embedded identity provider, the demo organization); run `npm run build` first.
 *
 * Routes with parameters get the demo organization's real ids (a platform of each type, an account,
 * a customer and a copy link, the last two created here); a route of app/routes.ts with no visit
 * below stops the script, so a new route is not left out silently. `--only <text>[,<text>…]` visits only
 * the routes whose name or path contains one of the texts. Exits 1 when something is cut off at 1440 px.
 * The review of these screenshots: docs/ui-review.md.
 */
import fs from "node:fs";
import path from "node:path";
import type { Browser, Page } from "playwright-core";
import routes from "../app/routes.ts";
import { DEMO_PASSWORD, startServer } from "../tests/e2e/globalSetup.ts";
import { launchBrowser, newContext, signInAtProvider } from "../tests/e2e/browser.ts";
import { apiAs } from "../tests/e2e/support/api.ts";
import { cutOff, pageScrollsSideways, sidewaysCulprits } from "../tests/e2e/support/overflow.ts";

const OUT = path.resolve("test-results", "screenshots");
const DESK = { width: 1440, height: 900 };
const PHONE = { width: 390, height: 844 };
const DEMO = { email: "demo@toolbox.local", password: DEMO_PASSWORD };

interface Ids {
  mt5: string;
  mt4: string;
  matchTrader: string;
  account: string;
  customer: string;
  linkName: string;
}

interface Visit {
  name: string;
  path: (ids: Ids) => string;
  /** The page shows skeletons on purpose (the style guide): wait for its heading only. */
  skeletons?: boolean;
  /** After the page is ready: open what the screenshot is of (a dialog, a tab). */
  then?: (page: Page, ids: Ids) => Promise<void>;
}

/** Paths in the route table that are not screens: the sign-in redirects and the silent renew frame. */
const RAW = new Set(["/silent-renew", "/silent-renew.html", "/auth-callback", "/auth-callback.html", "/logout-callback"]);

const settingsOf = (type: string, id: string) => `/tradePlatforms/${type}/${id}/settings`;

/** The visits of each route pattern of app/routes.ts (a pattern may have several: a panel, a dialog). */
const VISITS: Record<string, Visit[]> = {
  "/": [{ name: "overview", path: () => "/" }],
  "/logs": [{ name: "logs-audit", path: () => "/logs" }],
  "/logs/journal": [{ name: "logs-journal", path: () => "/logs/journal" }],
  "/debug": [{ name: "diagnostics", path: () => "/debug" }],
  "/inbox": [{ name: "inbox", path: () => "/inbox" }],
  "/users": [
    { name: "users", path: () => "/users" },
    { name: "users-account", path: (ids) => `/users?account=${encodeURIComponent(ids.account)}` },
  ],
  "/customers": [
    { name: "customers", path: () => "/customers" },
    { name: "customers-customer", path: (ids) => `/customers?customer=${ids.customer}` },
  ],
  "/index-sample": [{ name: "style-guide", path: () => "/index-sample", skeletons: true }],
  "/health": [{ name: "health", path: () => "/health" }],
  "/tradePlatforms/new": [{ name: "platform-new", path: () => "/tradePlatforms/new" }],
  "/tradePlatforms/AssignApplicationModal": [{ name: "assign-application", path: () => "/tradePlatforms/AssignApplicationModal" }],
  "/tradePlatforms/tradePlatformDeletedSuccessfully": [{ name: "platform-deleted", path: () => "/tradePlatforms/tradePlatformDeletedSuccessfully" }],
  "/tradePlatforms/:tradePlatformType/:tradePlatformId/settings": [
    { name: "platform-mt5-general", path: (ids) => settingsOf("MT5", ids.mt5) },
    { name: "platform-mt4-general", path: (ids) => settingsOf("MT4", ids.mt4) },
    { name: "platform-matchtrader-general", path: (ids) => settingsOf("MatchTrader", ids.matchTrader) },
  ],
  "/tradePlatforms/:tradePlatformType/:tradePlatformId/settings/apps": [{ name: "platform-apps", path: (ids) => `${settingsOf("MT5", ids.mt5)}/apps` }],
  "/tradePlatforms/:tradePlatformType/:tradePlatformId/settings/dealing": [
    { name: "platform-dealing", path: (ids) => `${settingsOf("MT5", ids.mt5)}/dealing` },
  ],
  "/tradePlatforms/:tradePlatformType/:tradePlatformId/settings/plugins": [
    { name: "platform-plugins", path: (ids) => `${settingsOf("MT5", ids.mt5)}/plugins` },
  ],
  "/tradePlatforms/:tradePlatformType/:tradePlatformId/settings/plugins/:pluginId/:pluginVersion/:pluginEditor": [
    {
      name: "platform-plugin-flexible-leverage",
      path: (ids) => `${settingsOf("MT5", ids.mt5)}/plugins/FlexibleLeverage.dll/5.00/Toolbox.MT5Plugin.FlexibleLeverage`,
    },
  ],
  "/tradePlatforms/:tradePlatformType/:tradePlatformId/settings/MT4MT5editor": [
    { name: "platform-mt4mt5-editor", path: (ids) => `${settingsOf("MT4", ids.mt4)}/MT4MT5editor` },
  ],
  "/tradePlatforms/:tradePlatformType/:tradePlatformId/settings/MatchTraderEditor": [
    { name: "platform-matchtrader-editor", path: (ids) => `${settingsOf("MatchTrader", ids.matchTrader)}/MatchTraderEditor` },
  ],
  "/apps/trades-blotter": [
    { name: "trades-blotter", path: () => "/apps/trades-blotter" },
    {
      name: "trades-blotter-historical",
      path: () => "/apps/trades-blotter",
      then: async (page) => {
        await page.getByRole("button", { name: "Historical" }).click();
        await page.getByLabel("From day").waitFor();
      },
    },
  ],
  "/apps/quotes-monitor": [
    { name: "quotes-monitor", path: () => "/apps/quotes-monitor" },
    { name: "quotes-monitor-comparison", path: () => "/apps/quotes-monitor?view=comparison" },
  ],
  "/apps/trades-copier": [
    { name: "trades-copier", path: () => "/apps/trades-copier" },
    {
      name: "trades-copier-link",
      path: () => "/apps/trades-copier",
      then: async (page, ids) => {
        await page.getByRole("gridcell", { name: ids.linkName }).first().click({ timeout: 20_000 });
        await page.getByRole("dialog").waitFor();
      },
    },
  ],
  "/apps/trades-copier/status": [{ name: "trades-copier-status", path: () => "/apps/trades-copier/status" }],
  "/settings": [{ name: "settings-organization", path: () => "/settings" }],
  "/settings/members": [{ name: "settings-members", path: () => "/settings/members" }],
  "/settings/security": [{ name: "settings-security", path: () => "/settings/security" }],
  "/settings/notifications": [{ name: "settings-notifications", path: () => "/settings/notifications" }],
  "/settings/organizations": [{ name: "settings-organizations", path: () => "/settings/organizations" }],
  "/*": [{ name: "not-found", path: () => "/no/such/page" }],
};

interface RouteEntry {
  path?: string;
  index?: boolean;
  children?: RouteEntry[];
}

/** Every screen's URL pattern in the route table: leaves only (a layout is seen through its children). */
function patterns(entries: readonly RouteEntry[], parent = ""): string[] {
  return entries.flatMap((e) => {
    const here = e.index || !e.path ? parent : `${parent}/${e.path}`;
    return e.children?.length ? patterns(e.children, here) : [here || "/"];
  });
}

/** Signed in as the demo administrator, in a context of this size. */
async function signedIn(browser: Browser, baseURL: string, viewport: { width: number; height: number }, phone: boolean): Promise<Page> {
  const context = await newContext(browser, { baseURL, viewport, colorScheme: "light", ...(phone ? { isMobile: true, hasTouch: true } : {}) });
  const page = await context.newPage();
  await page.goto("/");
  await page.waitForURL((u) => u.pathname.startsWith("/oidc/"), { timeout: 30_000 });
  await signInAtProvider(page, DEMO);
  await page.waitForURL((u) => !u.pathname.startsWith("/oidc/"), { timeout: 30_000 });
  await page.getByRole("heading", { level: 1 }).first().waitFor({ timeout: 30_000 });
  return page;
}

/** The demo organization's ids, plus a customer and a copy link made for the screenshots (the demo has neither). */
async function demoIds(page: Page): Promise<Ids> {
  const api = apiAs(page);
  const platforms = await api.get<{ id: string; type: string }[]>("/api/tradePlatforms");
  const of = (type: string) => platforms.find((p) => p.type === type)?.id ?? failed(`no ${type} platform in the demo organization`);
  const [mt5, mt4, matchTrader] = [of("MT5"), of("MT4"), of("MatchTrader")];
  for (const id of [mt5, mt4, matchTrader]) {
    const apps = ["tradesBlotter", "tradesCopier", "quotesMonitor"].map((app) => ({ app, enabled: true }));
    const r = await api.call("PUT", `/api/tradePlatforms/${id}/apps`, apps);
    if (r.status !== 200) failed(`assigning apps: ${r.status} ${r.text}`);
  }
  const firstLogin = async (platformId: string) => {
    for (let i = 0; i < 60; i++) {
      const page = await api.get<{ items: { login: string }[] }>(`/api/accounts?platformId=${platformId}&sort=login&dir=asc&limit=2`);
      if (page.items.length >= 2) return page.items.map((a) => a.login);
      await new Promise((r) => setTimeout(r, 500));
    }
    return failed(`no accounts mirrored on ${platformId}`);
  };
  const [source, other] = await firstLogin(mt5);
  const [follower] = await firstLogin(mt4);
  const customer = await api.post<{ id: string }>("/api/customers", {
    kind: "person",
    name: "Amelia Hartington-Whitfield",
    email: "amelia.hartington-whitfield@example.com",
    country: "GB",
  });
  if (customer.status !== 201) failed(`creating a customer: ${customer.status} ${customer.text}`);
  const linkName = "Signals desk to MT4 retail (multiplier 2)";
  const link = await api.post("/api/tradesCopier/links", {
    name: linkName,
    source: { platformId: mt5, login: source },
    followers: [
      { account: { platformId: mt4, login: follower }, volume: { mode: "multiplier", multiplier: 2 } },
      { account: { platformId: mt5, login: other }, direction: "reverse" },
    ],
  });
  if (link.status !== 201) failed(`creating a copy link: ${link.status} ${link.text}`);
  return { mt5, mt4, matchTrader, account: `${mt5}:${source}`, customer: customer.json.id, linkName };
}

function failed(message: string): never {
  throw new Error(message);
}

/** Until what the page loads has arrived: a heading, no skeleton or busy region left, animations settled. */
async function settle(page: Page, skeletons = false) {
  await page.getByRole("heading").first().waitFor({ timeout: 30_000 });
  if (!skeletons)
    await page
      .waitForFunction(() => !document.querySelector('.tb-shimmer, [aria-busy="true"], .ag-overlay-loading-center'), undefined, { timeout: 20_000 })
      .catch(() => console.warn(`  still loading after 20 s: ${page.url()}`));
  await page.waitForFunction(() => document.getAnimations().every((a) => a.playState !== "running" || a.effect?.getComputedTiming().iterations === Infinity));
  await page.waitForTimeout(400);
}

/** Scrolled to the end and back: charts draw when first seen (app/ui/charts/Chart.tsx), and a full-page screenshot shows what is below the fold. */
async function scrollThrough(page: Page) {
  const height = await page.evaluate(() => document.documentElement.scrollHeight);
  const step = page.viewportSize()?.height ?? 800;
  for (let y = step; y < height; y += step) {
    await page.evaluate((top) => window.scrollTo(0, top), y);
    await page.waitForTimeout(150);
  }
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.waitForTimeout(300);
}

async function darkMode(page: Page, dark: boolean) {
  await page.emulateMedia({ colorScheme: dark ? "dark" : "light" });
  await page.waitForFunction((d) => document.documentElement.classList.contains("dark") === d, dark);
  await page.waitForTimeout(150);
}

async function main() {
  const only = process.argv.includes("--only") ? process.argv[process.argv.indexOf("--only") + 1] : undefined;
  if (!fs.existsSync("build/server/index.js")) failed("no build: run `npm run build` first");
  const screens = patterns(routes as RouteEntry[]).filter((p) => !RAW.has(p));
  const missing = screens.filter((p) => !VISITS[p]);
  if (missing.length) failed(`routes with no visit in scripts/screenshots.ts: ${missing.join(", ")}`);
  // A partial run (--only) replaces only its own screenshots.
  if (!only) fs.rmSync(OUT, { recursive: true, force: true });
  fs.mkdirSync(OUT, { recursive: true });

  console.log("Starting Toolbox (production build, PGlite, embedded provider) …");
  const { server, stop } = await startServer("screenshots");
  const browser = await launchBrowser();
  const report: { route: string; name: string; url: string; desk: string[]; phone: string[] }[] = [];
  try {
    const desk = await signedIn(browser, server.baseUrl, DESK, false);
    const phone = await signedIn(browser, server.baseUrl, PHONE, true);
    const ids = await demoIds(desk);
    for (const route of screens) {
      for (const visit of VISITS[route]!) {
        if (only && !only.split(",").some((o) => visit.name.includes(o) || route.includes(o))) continue;
        const url = visit.path(ids);
        const entry = { route, name: visit.name, url, desk: [] as string[], phone: [] as string[] };
        for (const [page, size] of [
          [desk, "desk"],
          [phone, "phone"],
        ] as const) {
          await darkMode(page, false);
          await page.goto(url);
          await settle(page, visit.skeletons);
          if (visit.then) {
            await visit.then(page, ids);
            await settle(page);
          }
          await scrollThrough(page);
          if (size === "desk") {
            entry.desk = await cutOff(page);
            if (await pageScrollsSideways(page)) entry.desk.push(...(await sidewaysCulprits(page)));
            await page.screenshot({ path: path.join(OUT, `${visit.name}.light.png`), fullPage: true });
            await darkMode(page, true);
            await page.screenshot({ path: path.join(OUT, `${visit.name}.dark.png`), fullPage: true });
            await darkMode(page, false);
          } else {
            const sideways = await pageScrollsSideways(page);
            if (sideways) entry.phone.push(`the page scrolls sideways by ${sideways} px`, ...(await sidewaysCulprits(page)));
            await page.screenshot({ path: path.join(OUT, `${visit.name}.phone.png`), fullPage: true });
          }
        }
        report.push(entry);
        const verdict = entry.desk.length ? `CUT OFF at 1440 px:\n    ${entry.desk.join("\n    ")}` : "nothing cut off at 1440 px";
        console.log(`${visit.name.padEnd(36)} ${url}\n  ${verdict}${entry.phone.length ? `\n  phone: ${entry.phone.join("\n    ")}` : ""}`);
      }
    }
  } finally {
    await browser.close();
    await stop();
  }
  fs.writeFileSync(path.join(OUT, "report.json"), JSON.stringify(report, null, 2));
  const bad = report.filter((r) => r.desk.length);
  console.log(`\n${report.length} screens, ${report.length * 3} screenshots in ${path.relative(process.cwd(), OUT)}/; ${bad.length} cut off at 1440 px.`);
  process.exitCode = bad.length ? 1 : 0;
}

await main();
