import type { Page } from "playwright-core";

/**
 * What is cut off on the page as it stands, one readable line each (empty when nothing is):
 * - the whole page scrolls sideways (the root is wider than the viewport);
 * - an element that hides its overflow holds text wider than itself, unless it is one of a data
 *   grid's own cells and headers (AG Grid clips those by design, the column can be widened) or it is
 *   truncated on purpose: an ellipsis with the whole text in a title (its own or an ancestor's);
 * - an open dialog, menu, list or popover reaches outside the viewport.
 * Used by scripts/screenshots.ts (every check) and the accessibility browser suite (`pageScrollsSideways`).
 */
export async function cutOff(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const root = document.documentElement;
    const found: string[] = [];
    if (root.scrollWidth > root.clientWidth) found.push(`the page scrolls sideways: ${root.scrollWidth} px wide in a ${root.clientWidth} px viewport`);
    // No named functions in here: tsx (esbuild) would wrap them in a helper the page does not have.
    for (const el of Array.from(document.body.querySelectorAll<HTMLElement>("*"))) {
      if (el.closest(".ag-root-wrapper")) continue;
      const style = getComputedStyle(el);
      if (style.overflowX !== "hidden" && style.overflowX !== "clip") continue;
      // Visually hidden text (sr-only) is a 1 px clip on purpose.
      if (el.clientWidth <= 1 || style.visibility === "hidden") continue;
      if (el.scrollWidth <= el.clientWidth + 1) continue;
      const text = (el.innerText || "").trim().replace(/\s+/g, " ");
      if (!text) continue;
      if (style.textOverflow === "ellipsis" && el.closest("[title]")) continue;
      const box = el.getBoundingClientRect();
      if (box.width === 0 || box.height === 0) continue;
      const label = el.getAttribute("aria-label");
      const where = `<${el.tagName.toLowerCase()}${label ? ` "${label}"` : ""} class="${String(el.className).slice(0, 80)}">`;
      found.push(`text cut off in ${where}: "${text.slice(0, 60)}" needs ${el.scrollWidth} px, has ${el.clientWidth} px`);
    }
    const layers = document.querySelectorAll<HTMLElement>(
      '[role="dialog"], [role="alertdialog"], [role="menu"], [role="listbox"], [data-radix-popper-content-wrapper]',
    );
    for (const el of Array.from(layers)) {
      const box = el.getBoundingClientRect();
      if (box.width === 0 || box.height === 0) continue;
      if (box.left < -1 || box.top < -1 || box.right > root.clientWidth + 1 || box.bottom > window.innerHeight + 1) {
        found.push(
          `a ${el.getAttribute("role") ?? "popover"} reaches outside the viewport: ${Math.round(box.left)},${Math.round(box.top)} to ${Math.round(box.right)},${Math.round(box.bottom)}`,
        );
      }
    }
    return found;
  });
}

/** How far the whole page scrolls sideways, in px (0 when it does not). */
export async function pageScrollsSideways(page: Page): Promise<number> {
  return page.evaluate(() => Math.max(0, document.documentElement.scrollWidth - document.documentElement.clientWidth));
}

/** The outermost elements that reach past the viewport's right edge (what makes the page scroll sideways), a few readable lines. */
export async function sidewaysCulprits(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const width = document.documentElement.clientWidth;
    const found: string[] = [];
    for (const el of Array.from(document.body.querySelectorAll<HTMLElement>("*"))) {
      if (el.getBoundingClientRect().right <= width + 1) continue;
      // Only the outermost one, and not inside something that clips or scrolls it (that does not widen the page).
      let parent = el.parentElement;
      let contained = false;
      let outermost = true;
      while (parent && parent !== document.body) {
        if (getComputedStyle(parent).overflowX !== "visible") contained = true;
        if (parent.getBoundingClientRect().right > width + 1) outermost = false;
        parent = parent.parentElement;
      }
      if (contained || !outermost) continue;
      const label = el.getAttribute("aria-label");
      found.push(
        `<${el.tagName.toLowerCase()}${label ? ` "${label}"` : ""} class="${String(el.className).slice(0, 100)}"> right edge at ${Math.round(el.getBoundingClientRect().right)} px: "${(el.innerText || "").trim().slice(0, 40)}"`,
      );
      if (found.length >= 5) break;
    }
    return found;
  });
}
