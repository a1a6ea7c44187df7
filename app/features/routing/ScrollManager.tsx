import { useEffect, useLayoutEffect, useRef } from "react";
import { useLocation, useMatches, useNavigationType } from "react-router";

/** A route opts out of scrolling on navigation with `export const handle = { scroll: false }`. */
export interface ScrollHandle {
  scroll?: boolean;
}

// useLayoutEffect warns during server rendering; this component only acts in the browser.
const useBrowserLayoutEffect = typeof window === "undefined" ? useEffect : useLayoutEffect;

/**
 * docs/requirements.md#r-routes: navigation scrolls to the top, or to the hash target, unless a route disables it.
 * Back and forward return to where the reader was on that page.
 */
export function ScrollManager() {
  const location = useLocation();
  const navigationType = useNavigationType();
  const matches = useMatches();
  const positions = useRef(new Map<string, number>());
  const firstRender = useRef(true);

  useEffect(() => {
    window.history.scrollRestoration = "manual";
  }, []);

  // Remember how far down the page we leave was scrolled.
  useBrowserLayoutEffect(() => {
    const key = location.key;
    const save = () => positions.current.set(key, window.scrollY);
    window.addEventListener("scroll", save, { passive: true });
    return () => window.removeEventListener("scroll", save);
  }, [location.key]);

  useBrowserLayoutEffect(() => {
    // The browser already placed the first page (including its hash) itself.
    if (firstRender.current) {
      firstRender.current = false;
      return;
    }
    if (matches.some((m) => (m.handle as ScrollHandle | undefined)?.scroll === false)) return;
    const saved = positions.current.get(location.key);
    // NavigationType.Pop by its value: importing the enum object would add to every page's JavaScript.
    if ((navigationType as string) === "POP" && saved !== undefined) {
      window.scrollTo(0, saved);
      return;
    }
    const target = location.hash ? document.getElementById(decodeHash(location.hash)) : null;
    if (target) target.scrollIntoView();
    else window.scrollTo(0, 0);
  }, [location.key]);

  return null;
}

function decodeHash(hash: string): string {
  try {
    return decodeURIComponent(hash.slice(1));
  } catch {
    return hash.slice(1);
  }
}
