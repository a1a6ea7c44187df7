/**
 * The members screen offers only what the person may give (core/grants.ts, docs/security.md "Who
 * may grant what"): a member manager without administrator rights sees the permissions they lack,
 * and Members and Settings, disabled with the reason, and cannot change an administrator or
 * themselves; an administrator may give everything.
 */
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { cleanup, render, screen } from "@testing-library/react";
import type { ReactNode } from "react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

const me = { sub: "me" };
vi.mock("~/auth", () => ({
  getFreshUser: async () => ({ access_token: "t" }),
  relogin: async () => {},
  useAuthStore: (select: (s: { user: { profile: { sub: string } } }) => unknown) => select({ user: { profile: { sub: me.sub } } }),
}));

import { claimsOfAccess, PRESET_ACCESS, type MemberAccess } from "@core/roles";
import type { MemberView } from "@core/schemas/members";
import { AccessEditor, draftOf } from "~/features/members/AccessEditor";
import { MemberDialog } from "~/features/members/MemberDialog";
import { resetProfile, useProfileStore } from "~/profile/store";

const ORG = "6f1c3c2e-8a55-4b8e-9d7e-2b7c0e6c9a10";
const manager: MemberAccess = { admin: false, permissions: { ...PRESET_ACCESS.support.permissions, members: ["read", "write"] } };

function signedInAs(access: MemberAccess) {
  useProfileStore.setState({ currentOrganizationId: ORG, claims: claimsOfAccess(access, ORG) });
}

const wrap = (ui: ReactNode) => render(<QueryClientProvider client={new QueryClient()}>{ui}</QueryClientProvider>);
const box = (name: string) => screen.getByRole<HTMLInputElement>("checkbox", { name });

function member(sub: string, access: MemberAccess, name: string): MemberView {
  return {
    sub,
    email: `${sub}@example.test`,
    name,
    joinedAt: "2026-01-01T00:00:00.000Z",
    lastSignInAt: null,
    role: access.admin ? "administrator" : "custom",
    admin: access.admin,
    permissions: access.admin ? {} : access.permissions,
    claims: [],
  };
}

describe("the members screen offers only what the person may give", () => {
  beforeEach(() => resetProfile());
  afterEach(() => cleanup());

  it("a member manager: their own permissions can be ticked; others, Members and Settings are disabled, with the reason", () => {
    render(<AccessEditor value={draftOf("custom", {})} onChange={() => {}} caller={manager} />);
    expect(box("Customers: Write").disabled).toBe(false);
    expect(box("Trading accounts: Read").disabled).toBe(false);
    expect(box("Trading accounts: Money").disabled).toBe(true);
    expect(box("Members: Read").disabled).toBe(true);
    expect(box("Settings: Write").disabled).toBe(true);
    const reason = screen.getByText(/You can give only permissions you have yourself; only an administrator gives Administrator, Members or Settings/);
    expect(box("Members: Write").getAttribute("aria-describedby")).toBe(reason.id);
  });

  it("an administrator may give everything", () => {
    render(<AccessEditor value={draftOf("custom", {})} onChange={() => {}} caller={PRESET_ACCESS.administrator} />);
    for (const name of ["Members: Write", "Settings: Write", "Trading accounts: Money"]) expect(box(name).disabled).toBe(false);
    expect(screen.queryByText(/You can give only permissions you have yourself/)).toBeNull();
  });

  it("a member manager opening an administrator, or themselves, gets the reason and no way to change or remove", () => {
    signedInAs(manager);
    wrap(<MemberDialog member={member("boss", PRESET_ACCESS.administrator, "Bea Boss")} onClose={() => {}} />);
    expect(
      screen.getByText(/Only an administrator can change, remove or reset the two-factor sign-in of Bea Boss: they have administrator access/),
    ).toBeTruthy();
    for (const name of ["Save role", "Remove from organization", "Reset two-factor"]) expect(screen.queryByRole("button", { name })).toBeNull();
    cleanup();

    wrap(<MemberDialog member={member(me.sub, manager, "Me Myself")} onClose={() => {}} />);
    expect(screen.getByText(/nobody changes their own access/)).toBeTruthy();
    expect(screen.queryByRole("button", { name: "Save role" })).toBeNull();
  });

  it("a member manager opening a member within their own access may change them", () => {
    signedInAs(manager);
    wrap(<MemberDialog member={member("colleague", { admin: false, permissions: { customers: ["read"] } }, "Cole")} onClose={() => {}} />);
    expect(screen.getByRole("button", { name: "Save role" })).toBeTruthy();
    expect(box("Members: Write").disabled).toBe(true);
  });
});
