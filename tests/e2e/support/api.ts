import type { Page } from "playwright-core";

/** What the API answered: its status, its body as text, and that body read as JSON (null when it is not JSON). */
export interface ApiAnswer<T> {
  status: number;
  text: string;
  json: T;
}

/**
 * The API as the page's signed-in person calls it: the same access token and the same current
 * organization the app holds in the page's storage, the headers the app sends (app/api/headers.ts).
 * The call runs inside the page, so it is made exactly as the app's own calls are.
 */
export function apiAs(page: Page) {
  async function call<T = unknown>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<ApiAnswer<T>> {
    const answer = await page.evaluate(
      async ({ method, path, body, headers }) => {
        const key = Object.keys(localStorage).find((k) => k.startsWith("oidc.user:"));
        if (!key) throw new Error("the page is not signed in: no oidc.user entry in its storage");
        const user = JSON.parse(localStorage.getItem(key)!) as { access_token: string };
        const profile = JSON.parse(localStorage.getItem("toolbox-profile") ?? "{}") as { state?: { currentOrganizationId?: string } };
        const r = await fetch(path, {
          method,
          headers: {
            Authorization: `Bearer ${user.access_token}`,
            OrganizationId: profile.state?.currentOrganizationId ?? "",
            "X-Requested-With": "XMLHttpRequest",
            ...(body === undefined ? {} : { "Content-Type": "application/json" }),
            ...headers,
          },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
        return { status: r.status, text: await r.text() };
      },
      { method, path, body, headers },
    );
    let json: unknown = null;
    try {
      json = JSON.parse(answer.text);
    } catch {
      /* not JSON: json stays null, the text is there to read */
    }
    return { ...answer, json: json as T };
  }
  return {
    call,
    /** GET a path and read its JSON. */
    get: async <T>(path: string): Promise<T> => (await call<T>("GET", path)).json,
    post: <T = unknown>(path: string, body?: unknown, headers?: Record<string, string>) => call<T>("POST", path, body, headers),
    patch: <T = unknown>(path: string, body?: unknown) => call<T>("PATCH", path, body),
  };
}
