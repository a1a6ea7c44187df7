import { cleanup, render, screen } from "@testing-library/react";
import { createRoutesStub } from "react-router";
import { afterEach, describe, expect, it } from "vitest";
import { RootErrorBoundary } from "~/features/routing/RootErrorBoundary";
import { validatedLoader } from "~/features/routing/validatedLoader";
import { routeRules } from "@core/routeValidation";
import * as notFoundRoute from "~/routes/not-found";

function renderAt(path: string) {
  const Stub = createRoutesStub([
    {
      id: "root",
      path: "/",
      Component: () => <p>home</p>,
      ErrorBoundary: RootErrorBoundary,
      HydrateFallback: () => null,
      children: [
        {
          path: "tradePlatforms/:tradePlatformType/:tradePlatformId/settings",
          loader: validatedLoader(routeRules.tradePlatform),
          Component: () => <p>settings</p>,
        },
        { path: "*", loader: notFoundRoute.loader, Component: notFoundRoute.default },
      ],
    },
  ]);
  return render(<Stub initialEntries={[path]} />);
}

describe("fatal errors (docs/requirements.md#r-routes)", () => {
  afterEach(cleanup);

  it("an unknown route shows the not-found page with a way home", async () => {
    renderAt("/no/such/page");
    expect(await screen.findByRole("heading", { level: 1, name: "Page not found" })).toBeTruthy();
    expect(screen.getByText("We are sorry but this page could not be found.")).toBeTruthy();
    expect(screen.getByRole("link", { name: "Back to home" }).getAttribute("href")).toBe("/");
  });

  it("a failed route validation shows its status and 'Page Not Found: {path}'", async () => {
    renderAt("/tradePlatforms/MT7/123/settings");
    expect(await screen.findByRole("heading", { level: 1, name: "Page Not Found: /tradePlatforms/MT7/123/settings" })).toBeTruthy();
    expect(screen.getByText("404")).toBeTruthy();
    expect(screen.getByRole("link", { name: "Back to home" })).toBeTruthy();
  });

  it("a valid route renders normally", async () => {
    renderAt("/tradePlatforms/MT5/8b0e4c38-3a0e-4f53-9b5c-2b1f7c9e0a11/settings");
    expect(await screen.findByText("home")).toBeTruthy();
  });
});
