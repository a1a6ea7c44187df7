import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { cleanup, render, screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

vi.mock("~/auth", () => ({ getFreshUser: async () => ({ access_token: "t" }), relogin: async () => {} }));

import type { PluginView } from "@core/schemas/plugins";
import { PluginDialog } from "~/features/plugins/PluginDialog";
import { resetProfile, useProfileStore } from "~/profile/store";

const plugin: PluginView = {
  id: "CPlugin.MT4Plugin.FlexibleLeverage",
  file: "CPlugin.MT4Plugin.FlexibleLeverage.dll",
  name: "Flexible Leverage",
  version: "1.25.0",
  enabled: true,
  configurable: true,
  state: "running",
  parameters: [
    { name: "Managers", value: "1000" },
    { name: "Rules", value: "[]" },
  ],
};
const json = (body: unknown, status: number) => new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } });

describe("a plugin's parameters dialog", () => {
  let sent: { url: string; method: string; body: unknown }[];
  let answers: (() => Response)[];

  beforeEach(() => {
    resetProfile();
    useProfileStore.setState({ currentOrganizationId: "org-1" });
    sent = [];
    answers = [];
    vi.stubGlobal(
      "fetch",
      vi.fn(async (url: string, init: RequestInit) => {
        sent.push({ url, method: init.method ?? "GET", body: typeof init.body === "string" ? JSON.parse(init.body) : undefined });
        return answers.shift()!();
      }),
    );
  });
  afterEach(() => {
    cleanup();
    vi.unstubAllGlobals();
    vi.restoreAllMocks();
  });

  const open = (canWrite = true, onClose = vi.fn()) => {
    render(
      <QueryClientProvider client={new QueryClient()}>
        <PluginDialog platformId="p1" plugin={plugin} canWrite={canWrite} onClose={onClose} />
      </QueryClientProvider>,
    );
    return onClose;
  };

  it("sends only what changed (the whole ordered list, the enabled flag) and closes once the server has it", async () => {
    const user = userEvent.setup();
    const onClose = open();
    const save = screen.getByRole<HTMLButtonElement>("button", { name: "Save on the server" });
    expect(save.disabled).toBe(true);
    await user.clear(screen.getByLabelText("Value of Rules"));
    await user.type(screen.getByLabelText("Value of Rules"), "Gold");
    await user.click(screen.getByRole("switch"));
    answers.push(() => json({ ...plugin, enabled: false, state: "disabled", parameters: [plugin.parameters[0], { name: "Rules", value: "[]" }] }, 200));
    await user.click(save);
    await waitFor(() => expect(onClose).toHaveBeenCalled());
    expect(sent).toEqual([
      {
        url: "/api/tradePlatforms/p1/plugins/CPlugin.MT4Plugin.FlexibleLeverage",
        method: "PUT",
        body: {
          enabled: false,
          parameters: [
            { name: "Managers", value: "1000" },
            { name: "Rules", value: "Gold" },
          ],
        },
      },
    ]);
  });

  it("shows the platform's refusal in its words and stays open; a name given twice is caught before sending", async () => {
    const user = userEvent.setup();
    const onClose = open();
    await user.type(screen.getByLabelText("Value of Rules"), "x");
    answers.push(() => json({ statusCode: 422, error: "Unprocessable Entity", message: "MT4 keeps a plugin parameter's value in 127 characters." }, 422));
    await user.click(screen.getByRole("button", { name: "Save on the server" }));
    expect((await screen.findByRole("alert")).textContent).toContain("127 characters");
    expect(onClose).not.toHaveBeenCalled();

    await user.clear(screen.getByLabelText("Name of parameter 1"));
    await user.type(screen.getByLabelText("Name of parameter 1"), "Rules");
    expect((await screen.findByRole("alert")).textContent).toMatch(/given twice/);
    expect(screen.getByRole<HTMLButtonElement>("button", { name: "Save on the server" }).disabled).toBe(true);
    expect(sent).toHaveLength(1);
  });

  it("only shows them without write access", () => {
    open(false);
    expect(screen.queryByRole("button", { name: "Save on the server" })).toBeNull();
    expect(screen.getByLabelText<HTMLInputElement>("Value of Rules").disabled).toBe(true);
    expect(screen.getByRole<HTMLButtonElement>("switch").disabled).toBe(true);
  });
});
