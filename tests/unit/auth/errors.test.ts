import { describe, expect, it } from "vitest";
import { authErrorText, providerError } from "~/auth/errors";

describe("auth error texts (docs/requirements.md#r-errors)", () => {
  it("is the error's own text, or 'unknown error'", () => {
    expect(authErrorText(new Error("State does not match"))).toBe("State does not match");
    expect(authErrorText(new Error(""))).toBe("unknown error");
    expect(authErrorText(undefined)).toBe("unknown error");
    expect(authErrorText({ weird: true })).toBe("unknown error");
    expect(authErrorText("login_required")).toBe("login_required");
  });

  it.each([
    ["nonce in id_token does not match nonce in client storage", "Invalid nonce in id_token"],
    ["ID Token is missing a subject claim", "No sub present in id_token"],
    ["Expected code in response", "No code in response"],
    ["IFrame timed out without a response", "Frame window timed out"],
    ["Popup closed by user", "Popup window closed"],
    ["A token is required", "a token is required"],
    ["Failed to fetch", "Network Error"],
  ])("words oidc-client-ts's '%s' as '%s'", (library, spec) => {
    expect(authErrorText(new Error(library))).toBe(spec);
  });

  it("turns a provider error response into an error with its description, else its code", () => {
    expect(providerError(new URLSearchParams("error=access_denied&error_description=The+user+said+no"))?.message).toBe("The user said no");
    expect(providerError(new URLSearchParams("error=login_required"))?.message).toBe("login_required");
    expect(providerError(new URLSearchParams("code=abc"))).toBeNull();
  });
});
