import { lazy, Suspense, useEffect, useLayoutEffect, useState } from "react";
import { registerToaster, useToastStore } from "./store";

const loadToaster = () => import("./Toaster");
const Toaster = lazy(() => loadToaster().then((m) => ({ default: m.Toaster })));

/** What a person does first that may soon raise a toast: the toaster is fetched then, ahead of it. */
const INTERACTIONS = ["pointerdown", "keydown"] as const;

/**
 * The toaster (Radix Toast) is fetched when it is first needed, not with the page's JavaScript nor
 * right after it (issue 30: the first screen's weight): when a toast is raised (it waits in the store
 * and shows when the toaster arrives; `toastsOnScreen` waits for it before a redirect), or at the
 * person's first click or key press, ahead of the toasts their actions raise.
 */
export function DeferredToaster() {
  const wanted = useToastStore((s) => s.toasts.length > 0);
  const [mounted, setMounted] = useState(false);
  // Before any effect of this commit (the sign-in guard's among them) can wait for a toast to show.
  useLayoutEffect(registerToaster, []);
  useEffect(() => {
    if (mounted) return;
    const prefetch = () => void loadToaster().then(() => setMounted(true));
    // Once here it stays mounted: later toasts show at once.
    if (wanted) return prefetch();
    for (const type of INTERACTIONS) window.addEventListener(type, prefetch, { once: true, capture: true, passive: true });
    return () => {
      for (const type of INTERACTIONS) window.removeEventListener(type, prefetch, { capture: true });
    };
  }, [mounted, wanted]);
  if (!mounted && !wanted) return null;
  return (
    <Suspense fallback={null}>
      <Toaster />
    </Suspense>
  );
}
