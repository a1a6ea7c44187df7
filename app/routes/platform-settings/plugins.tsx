import { Outlet } from "react-router";

/** The plugin list and each plugin's editor sit under /plugins; the level itself draws nothing. */
export default function PluginsLayout() {
  return <Outlet />;
}
