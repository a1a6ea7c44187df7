import crypto from "node:crypto";
import type { FastifyInstance, LightMyRequestResponse } from "fastify";

/**
 * The browser's part of the embedded provider's code flow, driven through `app.inject`:
 * authorize → sign-in (or sign-up) page → form post → code → token, with PKCE (S256) and a
 * cookie jar. `signIn` / `signUp` give real tokens for API tests; the step functions let tests
 * poke at each step.
 */

export interface TokenSet {
  access_token: string;
  id_token: string;
  refresh_token: string;
  expires_in: number;
  token_type: string;
  scope?: string;
}

export interface Credentials {
  email: string;
  password: string;
}

export interface SignUpDetails extends Credentials {
  name: string;
  /** Defaults to `password`. */
  confirmPassword?: string;
}

/** Cookies as a browser keeps them: by name, with their path; expired ones dropped. */
export class CookieJar {
  private cookies = new Map<string, { value: string; path: string }>();

  store(response: LightMyRequestResponse) {
    const header = response.headers["set-cookie"];
    const lines = header === undefined ? [] : Array.isArray(header) ? header : [header];
    for (const line of lines) {
      const [pair = "", ...attrs] = line.split(";").map((s) => s.trim());
      const eq = pair.indexOf("=");
      const name = pair.slice(0, eq);
      const value = pair.slice(eq + 1);
      let path = "/";
      let expired = value === "";
      for (const attr of attrs) {
        const [k = "", v = ""] = attr.split("=");
        if (k.toLowerCase() === "path") path = v;
        if (k.toLowerCase() === "expires" && new Date(v).getTime() <= Date.now()) expired = true;
        if (k.toLowerCase() === "max-age" && Number(v) <= 0) expired = true;
      }
      const key = `${name}@${path}`;
      if (expired) this.cookies.delete(key);
      else this.cookies.set(key, { value, path });
    }
  }

  header(url: string): string | undefined {
    const path = url.split("?")[0] ?? url;
    const pairs = [...this.cookies.entries()]
      .filter(([, c]) => path === c.path || path.startsWith(c.path.endsWith("/") ? c.path : `${c.path}/`))
      .map(([key, c]) => `${key.slice(0, key.lastIndexOf("@"))}=${c.value}`);
    return pairs.length ? pairs.join("; ") : undefined;
  }
}

export interface Flow {
  jar: CookieJar;
  publicUrl: string;
  clientId: string;
  redirectUri: string;
  verifier: string;
  state: string;
  nonce: string;
}

export interface AuthorizeOptions {
  redirectUri?: string;
  scope?: string;
  /** Override the S256 challenge (e.g. to try `plain`). */
  codeChallenge?: string;
  codeChallengeMethod?: string;
  extra?: Record<string, string>;
  /** Reuse a browser (its provider session) across flows. */
  jar?: CookieJar;
}

const random = () => crypto.randomBytes(32).toString("base64url");

/** A path to inject from a Location header (absolute on the public URL, or already a path). */
export function pathOf(location: string, publicUrl: string): string {
  const u = new URL(location, publicUrl);
  return u.pathname + u.search;
}

/** GET/POST through the app with the jar's cookies, storing what comes back. */
export async function browse(
  app: FastifyInstance,
  jar: CookieJar,
  method: "GET" | "POST",
  url: string,
  form?: Record<string, string>,
): Promise<LightMyRequestResponse> {
  const cookie = jar.header(url);
  const response = await app.inject({
    method,
    url,
    headers: {
      ...(cookie ? { cookie } : {}),
      accept: "text/html",
      ...(form ? { "content-type": "application/x-www-form-urlencoded" } : {}),
    },
    payload: form ? new URLSearchParams(form).toString() : undefined,
  });
  jar.store(response);
  return response;
}

/** Step 1: the authorization request. Answers with the provider's response (a 303 to the sign-in page, normally). */
export async function authorize(app: FastifyInstance, opts: AuthorizeOptions = {}) {
  const { config } = app.ctx;
  const flow: Flow = {
    jar: opts.jar ?? new CookieJar(),
    publicUrl: config.publicUrl,
    clientId: config.oidc.clientId,
    redirectUri: opts.redirectUri ?? `${config.publicUrl}/auth-callback`,
    verifier: random(),
    state: random(),
    nonce: random(),
  };
  const params = new URLSearchParams({
    client_id: flow.clientId,
    redirect_uri: flow.redirectUri,
    response_type: "code",
    scope: opts.scope ?? config.oidc.scope,
    state: flow.state,
    nonce: flow.nonce,
    code_challenge: opts.codeChallenge ?? crypto.createHash("sha256").update(flow.verifier).digest("base64url"),
    code_challenge_method: opts.codeChallengeMethod ?? "S256",
    ...opts.extra,
  });
  const response = await browse(app, flow.jar, "GET", `/oidc/auth?${params}`);
  return { flow, response };
}

/** Follows redirects until the browser would land on the client's redirect_uri; returns the code. */
export async function followToCallback(app: FastifyInstance, flow: Flow, response: LightMyRequestResponse): Promise<URL> {
  let current = response;
  for (let hop = 0; hop < 10; hop++) {
    const location = current.headers.location;
    if (current.statusCode < 300 || current.statusCode >= 400 || typeof location !== "string") {
      throw new Error(`expected a redirect, got ${current.statusCode}: ${current.body.slice(0, 500)}`);
    }
    const target = new URL(location, flow.publicUrl);
    if (target.href.startsWith(flow.redirectUri)) return target;
    current = await browse(app, flow.jar, "GET", pathOf(location, flow.publicUrl));
  }
  throw new Error("too many redirects");
}

/** Step 3: the code for tokens at the token endpoint (the public client: no secret, the PKCE verifier). */
export async function exchangeCode(app: FastifyInstance, flow: Flow, code: string, verifier = flow.verifier) {
  return app.inject({
    method: "POST",
    url: "/oidc/token",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    payload: new URLSearchParams({
      grant_type: "authorization_code",
      client_id: flow.clientId,
      code,
      redirect_uri: flow.redirectUri,
      code_verifier: verifier,
    }).toString(),
  });
}

/** A refresh at the token endpoint; the answer as is (200 with new tokens, or 400 invalid_grant). */
export async function refreshTokens(app: FastifyInstance, refreshToken: string) {
  return app.inject({
    method: "POST",
    url: "/oidc/token",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    payload: new URLSearchParams({
      grant_type: "refresh_token",
      client_id: app.ctx.config.oidc.clientId,
      refresh_token: refreshToken,
    }).toString(),
  });
}

/** A finished sign-in: the tokens, and what the browser saw on the way (its provider session, the callback URL). */
export interface SignedIn {
  tokens: TokenSet;
  flow: Flow;
  /** The redirect_uri with `code` and `state`, as the browser would load it. */
  callback: URL;
}

/** From the last form's answer to the tokens: follows the provider to the callback and exchanges the code. */
export async function completeFlow(app: FastifyInstance, flow: Flow, afterForm: LightMyRequestResponse): Promise<SignedIn> {
  const callback = await followToCallback(app, flow, afterForm);
  const code = callback.searchParams.get("code");
  if (!code) throw new Error(`no code in ${callback.href}`);
  if (callback.searchParams.get("state") !== flow.state) throw new Error("state does not match");
  const token = await exchangeCode(app, flow, code);
  if (token.statusCode !== 200) throw new Error(`token endpoint answered ${token.statusCode}: ${token.body}`);
  return { tokens: token.json<TokenSet>(), flow, callback };
}

export interface EmailStepOptions {
  /**
   * When the provider asks the person to confirm their address (an invitation waits for it): the
   * code they got by e-mail, or "skip" for "Not now". Without it, such a sign-in throws.
   */
  emailCode?: () => Promise<string>;
}

/** The provider sent the browser to the page that asks for the code mailed to the person. */
export const asksForEmailCode = (response: LightMyRequestResponse) =>
  response.statusCode === 303 && /\/verify-email$/.test(String(response.headers.location ?? ""));

/** Passes the e-mail confirmation step if the provider asks for it; answers the response that follows. */
async function passEmailStep(app: FastifyInstance, flow: Flow, posted: LightMyRequestResponse, opts: EmailStepOptions): Promise<LightMyRequestResponse> {
  if (!asksForEmailCode(posted)) return posted;
  if (!opts.emailCode) throw new Error("the provider asks to confirm the e-mail address (an invitation waits for it): pass emailCode");
  const page = pathOf(String(posted.headers.location), flow.publicUrl);
  const shown = await browse(app, flow.jar, "GET", page);
  if (shown.statusCode !== 200) throw new Error(`the confirmation page answered ${shown.statusCode}`);
  const code = await opts.emailCode();
  const confirmed = code === "skip" ? await browse(app, flow.jar, "POST", `${page}/skip`) : await browse(app, flow.jar, "POST", page, { code });
  if (confirmed.statusCode !== 303) throw new Error(`the confirmation code was refused (${confirmed.statusCode})`);
  return confirmed;
}

/** Signs in through the real sign-in page; the tokens and the steps' details. */
export async function signInFlow(app: FastifyInstance, credentials: Credentials, opts: AuthorizeOptions & EmailStepOptions = {}): Promise<SignedIn> {
  const { flow, response } = await authorize(app, opts);
  const page = pathOf(String(response.headers.location), flow.publicUrl);
  await browse(app, flow.jar, "GET", page);
  const posted = await browse(app, flow.jar, "POST", `${page}/login`, { email: credentials.email, password: credentials.password });
  if (posted.statusCode !== 303) throw new Error(`sign-in answered ${posted.statusCode}`);
  return completeFlow(app, flow, await passEmailStep(app, flow, posted, opts));
}

/** Signs in through the real sign-in page and returns the tokens of the Toolbox web client. */
export async function signIn(app: FastifyInstance, credentials: Credentials, opts: AuthorizeOptions & EmailStepOptions = {}): Promise<TokenSet> {
  return (await signInFlow(app, credentials, opts)).tokens;
}

/**
 * Signs out as the web app does: the provider's end-session page with the ID token as hint, then
 * the confirmation its page posts by itself. Answers the confirmation (303 to the site root).
 */
export async function signOut(app: FastifyInstance, jar: CookieJar, idToken: string): Promise<LightMyRequestResponse> {
  const { publicUrl } = app.ctx.config;
  const params = new URLSearchParams({ id_token_hint: idToken, post_logout_redirect_uri: `${publicUrl}/` });
  const page = await browse(app, jar, "GET", `/oidc/session/end?${params}`);
  const xsrf = /name="xsrf" value="([^"]+)"/.exec(page.body)?.[1];
  if (page.statusCode !== 200 || !xsrf) throw new Error(`sign-out page answered ${page.statusCode}: ${page.body.slice(0, 300)}`);
  const confirmed = await browse(app, jar, "POST", "/oidc/session/end/confirm", { xsrf, logout: "yes" });
  if (confirmed.statusCode !== 303) throw new Error(`sign-out confirmation answered ${confirmed.statusCode}`);
  return confirmed;
}

/** Creates an account through the real sign-up page and returns its tokens. */
export async function signUp(app: FastifyInstance, details: SignUpDetails, opts: AuthorizeOptions & EmailStepOptions = {}): Promise<TokenSet> {
  return (await signUpFlow(app, details, opts)).tokens;
}

/** Creates an account through the real sign-up page; the tokens and the steps' details. */
export async function signUpFlow(app: FastifyInstance, details: SignUpDetails, opts: AuthorizeOptions & EmailStepOptions = {}): Promise<SignedIn> {
  const { flow, response } = await authorize(app, opts);
  const page = pathOf(String(response.headers.location), flow.publicUrl);
  await browse(app, flow.jar, "GET", `${page}/signup`);
  const posted = await browse(app, flow.jar, "POST", `${page}/signup`, {
    name: details.name,
    email: details.email,
    password: details.password,
    confirmPassword: details.confirmPassword ?? details.password,
  });
  if (posted.statusCode !== 303) throw new Error(`sign-up answered ${posted.statusCode}`);
  return completeFlow(app, flow, await passEmailStep(app, flow, posted, opts));
}

/** The code of the newest confirmation e-mail to `email` in the development outbox, read from its page as a developer would. */
export async function codeFromDevOutbox(app: FastifyInstance, email: string): Promise<string> {
  const page = await app.inject({ url: "/oidc/dev/outbox", headers: { accept: "text/html" } });
  if (page.statusCode !== 200) throw new Error(`the development outbox answered ${page.statusCode}`);
  // Newest first; each message is an <article> naming its recipient.
  const message = page.body.split("<article").find((m) => m.includes(`To: ${email}`) && m.includes("confirmation code"));
  const code = /<pre>[^<]*?\b(\d{6})\b/.exec(message ?? "")?.[1];
  if (!code) throw new Error(`no confirmation code for ${email} in the development outbox`);
  return code;
}
