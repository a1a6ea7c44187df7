import { act, cleanup, render, screen } from "@testing-library/react";
import { createRoutesStub, Link, Outlet } from "react-router";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { ScrollManager } from "~/features/routing/ScrollManager";

function Root() {
  return (
    <>
      <ScrollManager />
      <Link to="/b">to b</Link>
      <Link to="/b#details">to details</Link>
      <Link to="/modal">to modal</Link>
      <Outlet />
    </>
  );
}

const Stub = createRoutesStub([
  {
    path: "/",
    Component: Root,
    children: [
      { path: "a", Component: () => <p>page a</p> },
      { path: "b", Component: () => <h2 id="details">page b</h2> },
      { path: "modal", handle: { scroll: false }, Component: () => <p>modal</p> },
    ],
  },
]);

describe("scroll on navigation (docs/requirements.md#r-routes)", () => {
  let scrollTo: ReturnType<typeof vi.fn>;
  let scrollIntoView: ReturnType<typeof vi.fn>;
  beforeEach(() => {
    scrollTo = vi.fn();
    vi.stubGlobal("scrollTo", scrollTo);
    scrollIntoView = vi.fn();
    Element.prototype.scrollIntoView = scrollIntoView as unknown as Element["scrollIntoView"];
  });
  afterEach(() => {
    cleanup();
    vi.unstubAllGlobals();
  });

  const go = async (name: string) => {
    await act(async () => screen.getByRole("link", { name }).click());
  };

  it("scrolls to the top on navigation, but not on the first page", async () => {
    render(<Stub initialEntries={["/a"]} />);
    await screen.findByText("page a");
    expect(scrollTo).not.toHaveBeenCalled();
    await go("to b");
    expect(scrollTo).toHaveBeenCalledWith(0, 0);
  });

  it("scrolls to the hash target", async () => {
    render(<Stub initialEntries={["/a"]} />);
    await go("to details");
    expect(scrollIntoView).toHaveBeenCalledTimes(1);
    expect(scrollTo).not.toHaveBeenCalled();
  });

  it("leaves the scroll alone for a route with handle { scroll: false }", async () => {
    render(<Stub initialEntries={["/a"]} />);
    await go("to modal");
    await screen.findByText("modal");
    expect(scrollTo).not.toHaveBeenCalled();
    expect(scrollIntoView).not.toHaveBeenCalled();
  });
});
