import { eq } from "drizzle-orm";
import { afterAll, beforeAll, expect, it } from "vitest";
import { idpAccounts } from "../../server/db/schema.ts";
import { describeDb } from "../helpers/db.ts";
import { authorize, browse, pathOf } from "../helpers/oidcFlow.ts";
import { createTestApp, type TestApp } from "../helpers/testApp.ts";

let seq = 0;
const uniqueEmail = (label: string) => `${label}-${Date.now().toString(36)}-${seq++}@example.test`;

/** Passwords refused at sign-up, through the real page (its own app: sign-ups are rate-limited per address). */
describeDb("sign-up passwords", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t?.close());

  const signUpPage = async () => {
    const { flow, response } = await authorize(t.app);
    return { flow, page: `${pathOf(String(response.headers.location), flow.publicUrl)}/signup` };
  };
  const attempt = async (form: { name: string; email: string; password: string }) => {
    const { flow, page } = await signUpPage();
    return browse(t.app, flow.jar, "POST", page, { ...form, confirmPassword: form.password });
  };
  const accountsWith = (email: string) => t.ctx.database.db.select().from(idpAccounts).where(eq(idpAccounts.email, email.toLowerCase()));

  it("refuses the most common passwords, in any letter case, and says why on the page", async () => {
    for (const password of ["Password123", "QWERTYUIOP", "1234567890"]) {
      const email = uniqueEmail("common");
      const res = await attempt({ name: "Common Choice", email, password });
      expect(res.statusCode, password).toBe(400);
      expect(res.body).toContain("This is one of the most common passwords, the first ones attackers try.");
      expect(res.body).not.toContain(password);
      expect(await accountsWith(email)).toEqual([]);
    }
  });

  it("refuses a password equal to the email address, whatever its letter case", async () => {
    const email = uniqueEmail("self");
    for (const password of [email.toUpperCase(), ` ${email} `]) {
      const res = await attempt({ name: "Self Same", email, password });
      expect(res.statusCode).toBe(400);
      expect(res.body).toContain("Your password must not be your email address.");
    }
    expect(await accountsWith(email)).toEqual([]);
  });

  it("accepts an uncommon password, and says beforehand what is asked", async () => {
    const { flow, page } = await signUpPage();
    const form = await browse(t.app, flow.jar, "GET", page);
    expect(form.body).toContain("not a common password, nor your email address");
    const email = uniqueEmail("uncommon");
    const res = await browse(t.app, flow.jar, "POST", page, {
      name: "Uncommon Choice",
      email,
      password: "quokka-bramble-17",
      confirmPassword: "quokka-bramble-17",
    });
    expect(res.statusCode).toBe(303);
    expect(await accountsWith(email)).toHaveLength(1);
  });
});
