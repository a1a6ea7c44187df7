import { QuotesMonitorPage } from "~/features/quotes-monitor";

export const meta = () => [{ title: "Quotes Monitor · Toolbox" }];

export default function QuotesMonitorRoute() {
  return <QuotesMonitorPage />;
}
