import type { Config } from "@react-router/dev/config";

// SSR on: the server renders the shell (placeholders, /health), then the app runs as a SPA.
export default {
  appDirectory: "app",
  buildDirectory: "build",
  ssr: true,
} satisfies Config;
