import { useEffect, useRef, useState } from "react";
import { useLocation } from "react-router";

/**
 * A single-page app changes pages without a page load, so screen readers hear nothing. This
 * announces the new page's title after each navigation.
 */
export function RouteAnnouncer() {
  const { pathname } = useLocation();
  const [message, setMessage] = useState("");
  const first = useRef(true);
  useEffect(() => {
    if (first.current) {
      first.current = false;
      return;
    }
    // Wait a tick so <Meta> has written the new page's <title>.
    const timer = setTimeout(() => setMessage(document.title), 100);
    return () => clearTimeout(timer);
  }, [pathname]);
  return (
    <div aria-live="assertive" aria-atomic="true" className="sr-only">
      {message}
    </div>
  );
}
