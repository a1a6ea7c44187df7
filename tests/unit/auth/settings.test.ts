// @vitest-environment node
import { describe, expect, it } from "vitest";
import { InMemoryWebStorage, WebStorageStateStore } from "oidc-client-ts";
import { buildUserManagerSettings } from "~/auth/client/settings";

const store = new WebStorageStateStore({ store: new InMemoryWebStorage() });
const config = {
  authority: "http://localhost:3000/oidc",
  clientId: "toolbox-web",
  scope: "openid profile email toolbox.api",
  audience: "toolbox.api",
  buildId: "b1",
};

describe("oidc-client-ts settings (docs/requirements.md#r-constants)", () => {
  it("uses the spec's constants and this origin's callback pages", () => {
    const s = buildUserManagerSettings({ ...config, resource: "urn:toolbox:api" }, "http://localhost:3000", { userStore: store, stateStore: store });
    expect(s).toMatchObject({
      authority: config.authority,
      client_id: "toolbox-web",
      scope: config.scope,
      response_type: "code",
      redirect_uri: "http://localhost:3000/auth-callback",
      silent_redirect_uri: "http://localhost:3000/silent-renew",
      post_logout_redirect_uri: "http://localhost:3000/",
      staleStateAgeInSeconds: 900,
      accessTokenExpiringNotificationTimeInSeconds: 60,
      checkSessionIntervalInSeconds: 2,
      silentRequestTimeoutInSeconds: 10,
      popupWindowFeatures: { width: 500, height: 500 },
      userStore: store,
      extraQueryParams: { resource: "urn:toolbox:api" },
      extraTokenParams: { resource: "urn:toolbox:api" },
      automaticSilentRenew: false,
    });
    expect(s.disablePKCE).not.toBe(true);
  });

  it("sends no resource to a provider that has none configured", () => {
    const s = buildUserManagerSettings(config, "https://toolbox.example", { userStore: store, stateStore: store });
    expect(s.extraQueryParams).toBeUndefined();
    expect(s.extraTokenParams).toBeUndefined();
  });
});
