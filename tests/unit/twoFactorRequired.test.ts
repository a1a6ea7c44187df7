import { afterEach, beforeEach, expect, it, vi } from "vitest";

vi.mock("~/auth", () => ({
  getFreshUser: vi.fn(async () => ({ access_token: "fresh-token", token_type: "Bearer", profile: { sub: "u1" } })),
  relogin: vi.fn(async () => {}),
}));

import { relogin } from "~/auth";
import { ApiError, api } from "~/api";
import { resetProfile, useProfileStore } from "~/profile/store";
import { useToastStore } from "~/ui/toast/store";

const MESSAGE = "This organization requires two-factor sign-in. Set up an authenticator app under Settings → Security, then sign in again with a code.";

beforeEach(() => {
  resetProfile();
  useProfileStore.setState({ currentOrganizationId: "org-1" });
  useToastStore.getState().clear();
  vi.stubGlobal("fetch", vi.fn());
});
afterEach(() => vi.unstubAllGlobals());

it("a 403 two_factor_required shows one toast leading to enrolment, even for silent callers, and does not sign in again by itself", async () => {
  const body = JSON.stringify({ statusCode: 403, error: "Forbidden", message: MESSAGE, code: "two_factor_required" });
  vi.mocked(fetch).mockResolvedValueOnce(new Response(body, { status: 403, headers: { "Content-Type": "application/json" } }));
  const error = await api.get("/api/accounts", { silent: true }).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(ApiError);
  expect((error as ApiError).code).toBe("two_factor_required");
  const [toast] = useToastStore.getState().toasts;
  expect(toast).toMatchObject({ title: "Two-factor sign-in required", description: MESSAGE, color: "warning" });
  expect(toast!.action?.label).toBe("Set up two-factor");
  expect(relogin).not.toHaveBeenCalled();

  // Another 403 (a missing permission) is an ordinary refusal: silent callers show it themselves.
  useToastStore.getState().clear();
  vi.mocked(fetch).mockResolvedValueOnce(
    new Response(JSON.stringify({ statusCode: 403, message: "No." }), { status: 403, headers: { "Content-Type": "application/json" } }),
  );
  const other = await api.get("/api/accounts", { silent: true }).catch((e: unknown) => e);
  expect((other as ApiError).code).toBeUndefined();
  expect(useToastStore.getState().toasts).toEqual([]);
});
