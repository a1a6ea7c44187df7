/**
 * Accessibility of every screen that is built, the second half of the list (./support/axe.ts): each
 * loaded once, no serious or critical violation in light or dark, no sideways scroll at a desk's or
 * a phone's width.
 */
import { describe } from "vitest";
import { SCREENS, screensPass } from "./support/axe.ts";

describe("accessibility of the screens, second half", () => {
  screensPass(SCREENS.slice(12));
});
