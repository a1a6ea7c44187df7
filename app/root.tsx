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
import "./app.css";

export function loader({ context }: Route.LoaderArgs) {
  const ctx = context as unknown as ToolboxLoadContext;
  return { config: ctx.config, nonce: ctx.cspNonce };
}

// Loader data never changes during a session: skip re-running it on every navigation.
export const shouldRevalidate = () => false;

// docs/requirements.md#r-product: the page title is the toolbox name; pages prefix it ("Overview · Toolbox").
export const meta: Route.MetaFunction = ({ error }) => {
  if (!error) return [{ title: "Toolbox" }];
  return [{ title: isRouteErrorResponse(error) && error.status === 404 ? "Page not found · Toolbox" : "Error · Toolbox" }];
};

// public/favicon.svg (and favicon.ico, its 16–48 px renderings, for browsers that ask /favicon.ico anyway).
export const links: Route.LinksFunction = () => [
  { rel: "icon", href: "/favicon.ico", sizes: "32x32" },
  { rel: "icon", href: "/favicon.svg", type: "image/svg+xml" },
];

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
      <ScrollManager />
      <AppShell />
      <Toaster />
    </QueryProvider>
  );
}

export const ErrorBoundary = RootErrorBoundary;
