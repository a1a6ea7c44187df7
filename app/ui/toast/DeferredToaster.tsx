import { lazy, Suspense, useEffect, useLayoutEffect, useState } from "react";
import { registerToaster, useToastStore } from "./store";

const loadToaster = () => import("./Toaster");
const Toaster = lazy(() => loadToaster().then((m) => ({ default: m.Toaster })));

/**
 * The toaster (Radix Toast) is fetched as soon as the page has hydrated, not with the page's first
 * JavaScript: it is off the shell's critical path, and still in place before anything can raise a
 * toast (a toast raised meanwhile waits in the store and shows when it arrives).
 */
export function DeferredToaster() {
  const wanted = useToastStore((s) => s.toasts.length > 0);
  const [mounted, setMounted] = useState(false);
  // Before any effect of this commit (the sign-in guard's among them) can wait for a toast to show.
  useLayoutEffect(registerToaster, []);
  useEffect(() => {
    void loadToaster().then(() => setMounted(true));
  }, []);
  if (!mounted && !wanted) return null;
  return (
    <Suspense fallback={null}>
      <Toaster />
    </Suspense>
  );
}
