import { describe, expect, it } from "vitest";
import { loggedUrl, serializeError } from "../../../server/http/logging.ts";

describe("what a log line may hold", () => {
  it("keeps paths and allow-listed parameters, and only the names of the others", () => {
    expect(loggedUrl("/api/members")).toBe("/api/members");
    expect(loggedUrl("/api/members?")).toBe("/api/members");
    expect(loggedUrl("/api/accounts?name=Ann%20Lee&sort=balance&dir=desc&limit=50&email=a%40b.c")).toBe(
      "/api/accounts?name=[Redacted]&sort=balance&dir=desc&limit=50&email=[Redacted]",
    );
    expect(loggedUrl("/oidc/session/end?id_token_hint=eyJ.x.y")).toBe("/oidc/session/end?id_token_hint=[Redacted]");
    expect(loggedUrl("/auth-callback?code=abc&state=def&iss=x")).toBe("/auth-callback?code=[Redacted]&state=[Redacted]&iss=[Redacted]");
    // A parameter name may itself carry data: an odd one is not kept either.
    expect(loggedUrl("/x?ann%40mail.example=1&flag")).toBe("/x?[Redacted]=[Redacted]&flag");
    // An allow-listed name sent encoded still counts; a look-alike does not.
    expect(loggedUrl("/x?s%6Frt=name&sort2=secret")).toBe("/x?s%6Frt=name&sort2=[Redacted]");
  });

  it("drops a failed query's parameters and a database error's details, along the chain of causes", () => {
    const driver = Object.assign(new Error("duplicate key value violates unique constraint"), {
      code: "23505",
      detail: "Key (email)=(ann@mail.example) already exists.",
      constraint: "idp_accounts_email_idx",
    });
    const failed = Object.assign(new Error('Failed query: insert into "idp_accounts" values ($1)\nparams: ann@mail.example'), {
      query: 'insert into "idp_accounts" values ($1)',
      params: ["ann@mail.example"],
      cause: driver,
    });
    const out = serializeError(failed);
    expect(JSON.stringify(out)).not.toContain("ann@mail.example");
    expect(out.message).toBe('Failed query: insert into "idp_accounts" values ($1)\nparams: [Redacted]');
    expect(out.cause).toMatchObject({ code: "23505", constraint: "idp_accounts_email_idx", message: "duplicate key value violates unique constraint" });
  });
});
