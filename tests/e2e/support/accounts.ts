import type { Page } from "playwright-core";
import { expect } from "vitest";

/** A cell of the accounts grid holding a login: infinite-model rows render before their data arrives. */
export const loginCell = (page: Page) =>
  page
    .locator('[role="gridcell"][col-id="login"]')
    .filter({ hasText: /^\s*\d+\s*$/ })
    .first();

/** On /users: wait for the first account to arrive, filter the list down to its login, and return that login. */
export async function filterUsersToFirstLogin(page: Page): Promise<string> {
  await loginCell(page).waitFor({ timeout: 30_000 });
  const login = (await loginCell(page).textContent())!.trim();
  await page.getByLabel("Login").fill(login);
  await expect.poll(() => page.locator('[role="gridcell"][col-id="login"]').allTextContents(), { timeout: 15_000 }).toEqual([login]);
  return login;
}
