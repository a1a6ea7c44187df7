import { Links, Meta, Scripts, isRouteErrorResponse, useLoaderData, useRouteLoaderData } from "react-router";
import type { ReactNode } from "react";
import type { Route } from "./+types/root";
import type { ToolboxLoadContext } from "../core/loadContext";
import { QueryProvider } from "./api";
import { RootErrorBoundary } from "./features/routing/RootErrorBoundary";
import { ScrollManager } from "./features/routing/ScrollManager";
import { AppShell } from "./features/shell/AppShell";
import { useNewVersionCheck } from "./features/version-check/useNewVersionCheck";
import { ColorModeScript } from "./ui/colorMode";
import { Toaster } from "./ui/toast";
import { TooltipProvider } from "./ui/Tooltip";
import "./app.css";

export function loader({ context }: Route.LoaderArgs) {
  const ctx = context as unknown as ToolboxLoadContext;
  return { config: ctx.config, nonce: ctx.cspNonce };
}

// Loader data never changes during a session: skip re-running it on every navigation.
export const shouldRevalidate = () => false;

// SPEC §1: the page title is the toolbox name; pages prefix it ("Overview · Toolbox").
export const meta: Route.MetaFunction = ({ error }) => {
  if (!error) return [{ title: "Toolbox" }];
  return [{ title: isRouteErrorResponse(error) && error.status === 404 ? "Page not found · Toolbox" : "Error · Toolbox" }];
};

const FAVICON = `data:image/svg+xml,${encodeURIComponent(
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="8" fill="#1f9d55"/><path d="M12 11V9.5A1.5 1.5 0 0 1 13.5 8h5A1.5 1.5 0 0 1 20 9.5V11M7.5 11h17a1 1 0 0 1 1 1v10a2 2 0 0 1-2 2h-15a2 2 0 0 1-2-2V12a1 1 0 0 1 1-1ZM6.5 17h19" fill="none" stroke="#fff" stroke-width="1.8" stroke-linecap="round"/></svg>',
)}`;

export const links: Route.LinksFunction = () => [{ rel: "icon", href: FAVICON, type: "image/svg+xml" }];

export function Layout({ children }: { children: ReactNode }) {
  const data = useRouteLoaderData<typeof loader>("root");
  return (
    <html lang="en" suppressHydrationWarning>
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <ColorModeScript nonce={data?.nonce} />
        <Meta />
        <Links />
      </head>
      <body className="min-h-dvh antialiased">
        {children}
        <Scripts nonce={data?.nonce} />
      </body>
    </html>
  );
}

export default function App() {
  const { config } = useLoaderData<typeof loader>();
  useNewVersionCheck(config.buildId);
  return (
    <QueryProvider>
      <TooltipProvider>
        <ScrollManager />
        <AppShell />
        <Toaster />
      </TooltipProvider>
    </QueryProvider>
  );
}

export const ErrorBoundary = RootErrorBoundary;
