import { TradesCopierLinksPage } from "~/features/trades-copier/TradesCopierLinksPage";

export const meta = () => [{ title: "Trades Copier · Toolbox" }];

export default function TradesCopierPage() {
  return <TradesCopierLinksPage />;
}
