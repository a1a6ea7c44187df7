import { TradesBlotterPage } from "~/features/trades-blotter";

export const meta = () => [{ title: "Trades Blotter · Toolbox" }];

export default function TradesBlotterRoute() {
  return <TradesBlotterPage />;
}
